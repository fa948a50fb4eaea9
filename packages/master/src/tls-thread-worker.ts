/**
 * The minion channel's TLS, in a thread of its own (`tls_thread: true`): this thread listens on
 * the minion port, does every handshake and every record's crypto, and hands the master's event
 * loop plain bytes over its message port, one numbered connection at a time (tls-thread.ts).
 * Only Node's own modules and two small ones of its own: it runs the same from the sources, the
 * build and the release.
 */
import { createServer as createNetServer, type Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { parentPort, workerData } from 'node:worker_threads';
import { plainAddress } from './plain-address.js';
import { bytesOf, Outbox, type Batch, type FromTlsThread, type TlsThreadData, type ToTlsThread } from './tls-thread-wire.js';

const data = workerData as TlsThreadData;
const port = parentPort!;
const context = createSecureContext({
  cert: data.cert,
  key: data.key,
  minVersion: 'TLSv1.3',
  ticketKeys: Buffer.from(data.ticketKeys),
  sessionTimeout: data.sessionTimeout,
});
const open = new Map<number, TLSSocket>();
let nextId = data.firstId;
/** Handshakes under way, in all and per source address: a flood of idle connections is refused here, before TLS costs anything. */
let handshaking = 0;
const perAddress = new Map<string, number>();

const outbox = new Outbox<FromTlsThread>((batch, transfer) => port.postMessage(batch, transfer));
const post = (msg: FromTlsThread): void => outbox.add(msg);

function onConnection(raw: Socket): void {
  const address = plainAddress(raw.remoteAddress);
  const fromHere = perAddress.get(address) ?? 0;
  if (handshaking >= data.maxHandshakes || fromHere >= data.maxPerAddress) {
    post({ t: 'refused', address });
    raw.destroy();
    return;
  }
  handshaking++;
  perAddress.set(address, fromHere + 1);
  let counted = true;
  const uncount = () => {
    if (!counted) return;
    counted = false;
    handshaking--;
    const n = (perAddress.get(address) ?? 1) - 1;
    if (n > 0) perAddress.set(address, n);
    else perAddress.delete(address);
  };
  raw.setNoDelay(true);
  const timer = setTimeout(() => {
    post({ t: 'timeout', address });
    raw.destroy();
  }, data.handshakeTimeoutMs);
  timer.unref();
  const tls = new TLSSocket(raw, { isServer: true, secureContext: context });
  tls.on('error', () => tls.destroy());
  tls.once('close', () => {
    clearTimeout(timer);
    uncount();
  });
  // the guard on the loop gives it its own auth_timeout from here: a handshake and an authentication each have one
  tls.once('secure', () => {
    clearTimeout(timer);
    uncount();
    const id = nextId++;
    open.set(id, tls);
    // unread until the master's loop asks: it paces what it takes on
    tls.pause();
    post({
      t: 'open',
      id,
      address: raw.remoteAddress ?? '',
      port: raw.remotePort ?? 0,
      binding: tls.exportKeyingMaterial(32, data.exporterLabel, Buffer.alloc(0)).toString('base64'),
      resumed: tls.isSessionReused(),
    });
    tls.on('data', (chunk: Buffer) => post({ t: 'data', id, ...outbox.bytes([chunk]) }));
    tls.on('end', () => post({ t: 'end', id }));
    tls.once('close', () => {
      if (open.delete(id)) post({ t: 'close', id });
    });
  });
}

port.on('message', (batch: Batch<ToTlsThread>) => {
  for (const msg of batch.msgs) heard(msg, batch.bytes);
});

function heard(msg: ToTlsThread, bytes: Uint8Array): void {
  if (msg.t === 'close') {
    server.close();
    for (const s of open.values()) s.destroy();
    return;
  }
  const tls = open.get(msg.id);
  if (!tls) return;
  switch (msg.t) {
    case 'write':
      tls.write(bytesOf(bytes, msg.at, msg.size));
      return;
    case 'pause':
      tls.pause();
      return;
    case 'resume':
      tls.resume();
      return;
    case 'end':
      tls.end();
      return;
    case 'destroy':
      // the master's loop closed it: no close to tell back
      open.delete(msg.id);
      tls.destroy();
      return;
  }
}

const server = createNetServer({ noDelay: true }, onConnection);
server.on('error', (err: NodeJS.ErrnoException) => post({ t: 'error', code: err.code ?? '', message: err.message, listening: server.listening }));
server.listen({ port: data.port, host: data.host, backlog: data.backlog }, () => {
  const a = server.address();
  post({ t: 'listening', port: a && typeof a === 'object' ? a.port : 0 });
});
