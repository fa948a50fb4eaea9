import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import t, { type Test } from 'tap';
import type { Worker } from 'node:worker_threads';
import { EXPORTER_LABEL } from '@brine/protocol';
import { rawSession } from '../../../test/helpers/raw-session.js';
import { inProcessMaster } from './helpers/in-process-master.js';
import { ensureCertificate } from '../src/tls.js';
import { ThreadSocket, TlsThread } from '../src/tls-thread.js';
import { countTurns } from './helpers/turns.js';

/** Sockets of this process's own event loop (a minion's TLS socket would be one of them without the thread). */
const loopSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

const threaded = inProcessMaster(t, 'tls-thread', { auto_accept: true, max_unauthenticated: 2, auth_timeout: 1 });
const inline = inProcessMaster(t, 'tls-inline', { auto_accept: true, tls_thread: false });

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 100_000 && !what(); i++) await nextTurn();
}

/** Closes the client and waits until the sockets it brought have left this loop: the next test counts afresh. */
async function hangUp(ws: { terminate(): void }, sockets: number): Promise<void> {
  ws.terminate();
  await until(() => loopSockets() <= sockets);
}

t.test("by default a minion's TLS runs in the thread: the loop holds only the plain side", async (t) => {
  const master = threaded.get();
  const before = loopSockets();
  const c = await rawSession(master.port, 'thread1');
  t.teardown(() => hangUp(c.ws, before));
  const session = master.hub.sessions.get('thread1');
  t.ok(session, 'authenticated over the thread (its channel binding checked by the signature)');
  const socket = (session!.ws as unknown as { _socket: unknown })._socket;
  t.ok(socket instanceof ThreadSocket, "the session's socket is the thread's plain side");
  t.equal(loopSockets() - before, 1, "one TCP socket more on this loop: the test's own client, none of the master's");
  t.equal((socket as ThreadSocket).remoteAddress, '127.0.0.1', 'the peer address comes across');
  c.send({ v: 1, type: 'ping', id: 'p1' });
  t.equal((await c.next('pong')).id, 'p1', 'frames flow both ways');
});

t.test('tls_thread: false keeps the TLS on the loop, and it still works', async (t) => {
  const master = inline.get();
  const before = loopSockets();
  const c = await rawSession(master.port, 'inline1');
  t.teardown(() => hangUp(c.ws, before));
  const socket = (master.hub.sessions.get('inline1')!.ws as unknown as { _socket: unknown })._socket;
  t.notOk(socket instanceof ThreadSocket, 'a TLS socket of this loop');
  t.equal(loopSockets() - before, 2, "the client's socket and the master's");
});

t.test('the thread refuses handshakes over max_unauthenticated and closes one that stalls', async (t) => {
  const master = threaded.get();
  const refusedBefore = master.hub.guard.stats.unauth_refused;
  const timeoutsBefore = master.hub.guard.stats.auth_timeouts;
  const idle: Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const s = connectTcp(master.port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    idle.push(s);
  }
  // the two idle ones hold both places: the third is closed on arrival, and counted by the guard
  const third = connectTcp(master.port, '127.0.0.1');
  third.on('error', () => {});
  await closed(third);
  await until(() => master.hub.guard.stats.unauth_refused > refusedBefore);
  t.equal(master.hub.guard.stats.unauth_refused, refusedBefore + 1, 'the refusal is counted in the stats');
  // auth_timeout (1 s) bounds a handshake that never comes
  await Promise.all(idle.map(closed));
  await until(() => master.hub.guard.stats.auth_timeouts >= timeoutsBefore + 2);
  t.equal(master.hub.guard.stats.auth_timeouts, timeoutsBefore + 2, 'both stalled handshakes were closed, counted as auth timeouts');
  const c = await rawSession(master.port, 'after-flood');
  c.ws.terminate();
  t.pass('a minion gets in once the stalled ones are gone');
});

/** A TLS thread of its own on a free port, closed after the test. */
async function startThread(t: Test, caps: { maxHandshakes?: number; maxPerAddress?: number } = {}): Promise<TlsThread> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-tls-thread-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cert = await ensureCertificate(dir);
  const thread = new TlsThread({
    cert: cert.cert,
    key: cert.key,
    ticketKeys: randomBytes(48),
    sessionTimeout: 60,
    exporterLabel: EXPORTER_LABEL,
    handshakeTimeoutMs: 5000,
    maxHandshakes: 8,
    maxPerAddress: 8,
    ...caps,
  });
  await new Promise<void>((resolve) => thread.listen({ port: 0, host: '127.0.0.1', backlog: 16 }, resolve));
  t.teardown(() => new Promise<void>((resolve) => thread.close(() => resolve())));
  return thread;
}

t.test('bytes cross the thread intact when the loop reads slower than the minion sends', async (t) => {
  const thread = await startThread(t);
  const accepted = new Promise<ThreadSocket>((resolve) => thread.on('connection', (s) => resolve(s as ThreadSocket)));
  const sent = randomBytes(4 << 20);
  const client = connectTls({ port: thread.address()!.port, host: '127.0.0.1', rejectUnauthorized: false });
  t.teardown(() => client.destroy());
  client.write(sent);
  const socket = await accepted;
  t.match(socket.binding, /^[A-Za-z0-9+/]{43}=$/, 'the channel binding (32 bytes of the TLS exporter) comes with the connection');
  const pauses: number[] = [];
  const send = thread.send.bind(thread);
  thread.send = (msg) => {
    if (msg.t === 'pause') pauses.push(socket.readableLength);
    send(msg);
  };
  const got: Buffer[] = [];
  let size = 0;
  // a slow reader: one chunk a turn, so the plain side's buffer fills and the thread is told to wait
  while (size < sent.length) {
    const chunk = socket.read() as Buffer | null;
    if (chunk) {
      got.push(chunk);
      size += chunk.length;
    } else await new Promise((r) => socket.once('readable', r));
    await nextTurn();
  }
  t.ok(pauses.length > 0, `the thread was told to stop reading ${pauses.length} times`);
  t.ok(Math.max(...pauses) < 1 << 20, `the loop held at most ${Math.max(...pauses)} bytes unread when it said so`);
  t.ok(Buffer.concat(got).equals(sent), 'all 4 MB arrived, in order');
  const echoed = new Promise<Buffer>((resolve) => client.once('data', resolve));
  socket.write('back');
  t.equal((await echoed).toString(), 'back', 'and a write reaches the client');
});

t.test('a TLS thread that dies is started again on the same port', async (t) => {
  const thread = await startThread(t);
  const port = thread.address()!.port;
  const first = new Promise<ThreadSocket>((resolve) => thread.once('connection', (s) => resolve(s as ThreadSocket)));
  const before = connectTls({ port, host: '127.0.0.1', rejectUnauthorized: false });
  before.on('error', () => {});
  t.teardown(() => before.destroy());
  const old = await first;
  const oldClosed = new Promise((resolve) => old.once('close', resolve));
  const restarted = new Promise<number>((resolve) => thread.once('restart', resolve));
  await (thread as unknown as { worker: Worker }).worker.terminate();
  t.equal(await restarted, 1, 'the exit is told, with its code');
  await oldClosed;
  t.pass("the dead thread's connection is closed on the loop too");
  const accepted = new Promise<ThreadSocket>((resolve) => thread.on('connection', (s) => resolve(s as ThreadSocket)));
  // the new thread may still be binding: a refused connect is tried again
  let client;
  for (;;) {
    const c = connectTls({ port, host: '127.0.0.1', rejectUnauthorized: false });
    const ok = await new Promise<boolean>((resolve) => {
      c.once('secureConnect', () => resolve(true));
      c.once('error', () => resolve(false));
    });
    if (ok) {
      client = c;
      break;
    }
  }
  t.teardown(() => client.destroy());
  client.write('hello');
  const socket = await accepted;
  t.equal(((await new Promise((r) => socket.once('data', r))) as Buffer).toString(), 'hello', 'a new connection on the same port works');
  t.not(socket.id, old.id, "the new thread's connections are numbered apart from the dead one's (a queued write cannot reach them)");
});

t.test('connections that close together are let go a few a turn (their teardown runs after the slice)', async (t) => {
  const thread = await startThread(t, { maxHandshakes: 64, maxPerAddress: 64 });
  const port = thread.address()!.port;
  const N = 400;
  const sockets: ThreadSocket[] = [];
  thread.on('connection', (s) => sockets.push(s as ThreadSocket));
  const clients: TLSSocket[] = [];
  t.teardown(() => clients.forEach((c) => c.destroy()));
  // the first one's session resumed by the rest: no certificate signature each
  const first = connectTls({ port, host: '127.0.0.1', rejectUnauthorized: false });
  clients.push(first);
  const session = await new Promise<Buffer>((resolve) => first.once('session', resolve));
  // no more at once than the listen backlog (16) takes
  for (let i = 1; i < N; i += 16) {
    const part = Array.from({ length: Math.min(16, N - i) }, () => connectTls({ port, host: '127.0.0.1', rejectUnauthorized: false, session }));
    clients.push(...part);
    await Promise.all(part.map((c) => new Promise((resolve) => c.once('secureConnect', resolve))));
  }
  await until(() => sockets.length === N);
  const turns = countTurns();
  const perTurn = new Map<number, number>();
  const gone = Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.resume();
          s.once('close', () => {
            perTurn.set(turns.count, (perTurn.get(turns.count) ?? 0) + 1);
            resolve();
          });
        }),
    ),
  );
  for (const c of clients) c.destroy();
  await gone;
  turns.stop();
  const most = Math.max(...perTurn.values());
  // a turn may hold two slices: one from the thread's message, one from the loop's own queue
  t.ok(most <= 128, `at most ${most} of ${N} connections closed in one turn, over ${perTurn.size} turns`);
});
