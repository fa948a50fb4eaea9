/** What the master's loop and its TLS thread say to each other (tls-thread.ts, tls-thread-worker.ts). */

export interface TlsThreadData {
  cert: string;
  key: string;
  ticketKeys: Uint8Array;
  sessionTimeout: number;
  exporterLabel: string;
  port: number;
  host: string;
  backlog: number;
  /** The first connection's number: each thread started numbers its own, so none is taken for another's. */
  firstId: number;
  /** A connection that has not finished its handshake by then is closed. */
  handshakeTimeoutMs: number;
  /** Handshakes under way at once, in all and from one source address; more are closed on arrival. */
  maxHandshakes: number;
  maxPerAddress: number;
}

export type FromTlsThread =
  | { t: 'listening'; port: number }
  | { t: 'error'; code: string; message: string; listening: boolean }
  | { t: 'refused'; address: string }
  /** A connection did not finish its handshake within the time it had (auth_timeout). */
  | { t: 'timeout'; address: string }
  | { t: 'open'; id: number; address: string; port: number; binding: string; resumed: boolean }
  /** Bytes read from a connection: `size` bytes at `at` of its batch's `bytes`. */
  | { t: 'data'; id: number; at: number; size: number }
  | { t: 'end'; id: number }
  | { t: 'close'; id: number };

export type ToTlsThread =
  | { t: 'write'; id: number; at: number; size: number }
  | { t: 'pause'; id: number }
  | { t: 'resume'; id: number }
  | { t: 'end'; id: number }
  | { t: 'destroy'; id: number }
  | { t: 'close' };

/** What one side says in one turn: its messages, and the bytes they carry in one buffer. */
export interface Batch<M> {
  msgs: M[];
  bytes: Uint8Array;
}

/**
 * Messages said in one turn go as one batch, the bytes of all of them copied into one buffer
 * that is handed over, not cloned: a fleet's frames are thousands a turn, and a buffer and a
 * transfer each cost more than the copy.
 */
export class Outbox<M> {
  private msgs: M[] = [];
  private chunks: Uint8Array[] = [];
  private size = 0;
  private readonly post: (batch: Batch<M>, transfer: ArrayBuffer[]) => void;

  constructor(post: (batch: Batch<M>, transfer: ArrayBuffer[]) => void) {
    this.post = post;
  }

  add(msg: M): void {
    if (this.msgs.length === 0) setImmediate(() => this.flush());
    this.msgs.push(msg);
  }

  /** Queues bytes for the next batch: where they will be in it. */
  bytes(chunks: Uint8Array[]): { at: number; size: number } {
    const at = this.size;
    for (const c of chunks) {
      this.chunks.push(c);
      this.size += c.length;
    }
    return { at, size: this.size - at };
  }

  flush(): void {
    if (this.msgs.length === 0) return;
    const bytes = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    const batch = { msgs: this.msgs, bytes };
    this.msgs = [];
    this.chunks = [];
    this.size = 0;
    this.post(batch, [bytes.buffer]);
  }
}

/** The bytes a message carries, as a Buffer over its batch's buffer (no copy). */
export function bytesOf(batch: Uint8Array, at: number, size: number): Buffer {
  return Buffer.from(batch.buffer, batch.byteOffset + at, size);
}
