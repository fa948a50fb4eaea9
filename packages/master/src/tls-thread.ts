import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { installRoot } from '@brine/core';
import { bytesOf, Outbox, type Batch, type FromTlsThread, type TlsThreadData, type ToTlsThread } from './tls-thread-wire.js';

/** A connection of the minion channel as the hub and the guard see it: a TLS socket, or one whose TLS runs in the TLS thread. */
export type ChannelSocket = Duplex & { remoteAddress?: string | undefined; remotePort?: number | undefined };

/** Where the channel's listener comes from: a paused TCP server (TLS on this loop) or the TLS thread. */
export interface MinionAcceptor {
  on(event: 'connection', listener: (socket: ChannelSocket) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  once(event: 'error', listener: (err: Error) => void): unknown;
  listen(options: { port: number; host: string; backlog: number }, done: () => void): unknown;
  address(): AddressInfo | string | null;
  close(done?: (err?: Error) => void): unknown;
}

/** The TLS exporter's value of a connection (its channel binding) and whether it resumed a session. */
export function tlsFacts(socket: ChannelSocket, label: string): { binding: string; resumed: boolean } {
  if (socket instanceof ThreadSocket) return { binding: socket.binding, resumed: socket.resumed };
  const tls = socket as unknown as TLSSocket;
  return { binding: tls.exportKeyingMaterial(32, label, Buffer.alloc(0)).toString('base64'), resumed: tls.isSessionReused() };
}

/** The plain side of a connection whose TLS the thread does: what http and ws read and write. */
export class ThreadSocket extends Duplex {
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly encrypted = true;
  readonly binding: string;
  readonly resumed: boolean;
  /** The thread holds the connection's reading until this side asks for bytes. */
  private paused = true;
  closedByThread = false;
  private readonly thread: TlsThread;
  readonly id: number;

  constructor(thread: TlsThread, open: Extract<FromTlsThread, { t: 'open' }>) {
    super({ allowHalfOpen: false });
    this.thread = thread;
    this.id = open.id;
    this.remoteAddress = open.address;
    this.remotePort = open.port;
    this.binding = open.binding;
    this.resumed = open.resumed;
  }

  override _read(): void {
    if (!this.paused) return;
    this.paused = false;
    this.thread.send({ t: 'resume', id: this.id });
  }

  received(bytes: Buffer): void {
    if (this.push(bytes) || this.paused) return;
    this.paused = true;
    this.thread.send({ t: 'pause', id: this.id });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.thread.write(this.id, [chunk]);
    done();
  }

  // corked frames leave as one message, and so one TLS record
  override _writev(chunks: Array<{ chunk: Buffer }>, done: (err?: Error | null) => void): void {
    this.thread.write(
      this.id,
      chunks.map((c) => c.chunk),
    );
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.thread.send({ t: 'end', id: this.id });
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.closedByThread) this.thread.send({ t: 'destroy', id: this.id });
    this.thread.forget(this.id);
    done(err);
  }

  // what http and ws call on a net.Socket: the thread's TCP socket already has no Nagle delay and no timeout
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

/** The loop's time a turn for the thread's messages (the frame inbox then takes its own slice). */
const SLICE_MS = 5;

/**
 * Connections ended or closed a turn at the most: their work (ws's close, the hub's goodbye to a
 * session) runs after the slice, on the next-tick queue, where SLICE_MS does not see it. 10,000
 * minions leaving at once held the loop 132-223 ms a turn (104-135 ms of CPU), 16-77 ms with
 * this cap (bench/swarm.mjs, leave_*).
 */
const CLOSES_PER_SLICE = 64;

export type TlsThreadOptions = Omit<TlsThreadData, 'port' | 'host' | 'backlog' | 'firstId'>;

/**
 * The minion channel's listener with its TLS in a worker thread: handshakes (key exchange, the
 * certificate's signature) and each record's crypto leave the master's event loop, which gets
 * plain bytes per connection. Emits `connection` with a `ThreadSocket`; `refused` with a source
 * address the thread turned away and `timeout` with one whose handshake ran out of time (the
 * guard counts both); `restart` with the exit code of a thread that died (its connections
 * closed, a new one listening); and `error`.
 */
export class TlsThread extends EventEmitter implements MinionAcceptor {
  private worker?: Worker;
  private readonly sockets = new Map<number, ThreadSocket>();
  private readonly options: TlsThreadOptions;
  private bound?: AddressInfo;
  /** Threads started so far. */
  private started = 0;

  constructor(options: TlsThreadOptions) {
    super();
    this.options = options;
  }

  listen(at: { port: number; host: string; backlog: number }, done: () => void): this {
    const fromSource = import.meta.url.endsWith('.ts');
    const entry = path.join(installRoot(), 'packages', 'master', fromSource ? 'src/tls-thread-worker.ts' : 'dist/tls-thread-worker.js');
    // a restarted thread's connections are numbered apart: a write still queued for one of the
    // dead thread's connections must not reach a new one
    this.started++;
    const data: TlsThreadData = { ...this.options, ...at, firstId: this.started * 2 ** 32 };
    const worker = new Worker(entry, { workerData: data, name: 'brine-tls' });
    // the master's servers keep it running; a start that fails is not held up by this thread
    worker.unref();
    this.worker = worker;
    worker.on('message', (batch: Batch<FromTlsThread>) => this.heard(batch, (msg, bytes) => this.onMessage(msg, bytes, at.host, done)));
    worker.on('error', (err) => this.emit('error', err));
    worker.on('exit', (code) => {
      for (const s of this.sockets.values()) {
        s.closedByThread = true;
        s.destroy();
      }
      if (this.worker !== worker) return;
      // what the dead thread said and the loop has not handled is about connections now closed
      this.waiting.length = 0;
      // a thread that died (a bug, out of memory) is started again on the same port: the minions reconnect
      this.worker = undefined;
      this.emit('restart', code);
      this.listen({ ...at, port: this.bound?.port ?? at.port }, () => {});
    });
    return this;
  }

  /** The thread's batches not yet handled (a batch, and how far into it), in arrival order. */
  private readonly waiting: Array<{ batch: Batch<FromTlsThread>; at: number; handle: (msg: FromTlsThread, bytes: Uint8Array) => void }> = [];
  private nextSlice?: NodeJS.Immediate;

  private heard(batch: Batch<FromTlsThread>, handle: (msg: FromTlsThread, bytes: Uint8Array) => void): void {
    this.waiting.push({ batch, at: 0, handle });
    if (!this.nextSlice) this.work();
  }

  /**
   * Handles the thread's messages for at most SLICE_MS (and CLOSES_PER_SLICE) a turn: handing a
   * connection its bytes runs HTTP and ws on them there and then, and one batch of a fleet's
   * returns holds thousands (one turn of the thread, which is not paced): 90-140 ms in one go at
   * 10,000 minions.
   */
  private work(): void {
    this.nextSlice = undefined;
    const start = performance.now();
    let closes = 0;
    for (let n = 1; this.waiting.length > 0; n++) {
      const next = this.waiting[0]!;
      const msg = next.batch.msgs[next.at++]!;
      next.handle(msg, next.batch.bytes);
      if (next.at === next.batch.msgs.length) this.waiting.shift();
      if (msg.t === 'end' || msg.t === 'close') closes++;
      const spent = closes >= CLOSES_PER_SLICE || ((n & 15) === 0 && performance.now() - start > SLICE_MS);
      if (spent && this.waiting.length > 0) {
        this.nextSlice = setImmediate(() => this.work());
        return;
      }
    }
  }

  private onMessage(msg: FromTlsThread, bytes: Uint8Array, host: string, listening: () => void): void {
    switch (msg.t) {
      case 'data':
        return this.sockets.get(msg.id)?.received(bytesOf(bytes, msg.at, msg.size));
      case 'open': {
        const socket = new ThreadSocket(this, msg);
        this.sockets.set(msg.id, socket);
        this.emit('connection', socket);
        return;
      }
      case 'end':
        this.sockets.get(msg.id)?.push(null);
        return;
      case 'close': {
        const socket = this.sockets.get(msg.id);
        if (!socket) return;
        socket.closedByThread = true;
        socket.destroy();
        return;
      }
      case 'refused':
        this.emit('refused', msg.address);
        return;
      case 'timeout':
        this.emit('timeout', msg.address);
        return;
      case 'listening':
        this.bound = { port: msg.port, address: host, family: host.includes(':') ? 'IPv6' : 'IPv4' };
        listening();
        return;
      case 'error':
        // a port that cannot be had: the thread has nothing left to do
        if (!msg.listening) this.close();
        this.emit('error', Object.assign(new Error(msg.message), { code: msg.code }));
        return;
    }
  }

  private readonly outbox = new Outbox<ToTlsThread>((batch, transfer) => this.worker?.postMessage(batch, transfer));

  send(msg: ToTlsThread): void {
    if (this.worker) this.outbox.add(msg);
  }

  /** Queues the chunks' bytes for the thread (copied once, into the turn's batch). */
  write(id: number, chunks: Buffer[]): void {
    if (this.worker) this.outbox.add({ t: 'write', id, ...this.outbox.bytes(chunks) });
  }

  forget(id: number): void {
    this.sockets.delete(id);
  }

  address(): AddressInfo | null {
    return this.bound ?? null;
  }

  close(done?: (err?: Error) => void): this {
    const worker = this.worker;
    if (!worker) {
      done?.();
      return this;
    }
    this.outbox.flush();
    this.worker = undefined;
    if (this.nextSlice) clearImmediate(this.nextSlice);
    this.waiting.length = 0;
    worker.postMessage({ msgs: [{ t: 'close' }], bytes: new Uint8Array(0) } satisfies Batch<ToTlsThread>);
    worker.terminate().then(
      () => done?.(),
      (err: Error) => done?.(err),
    );
    return this;
  }
}
