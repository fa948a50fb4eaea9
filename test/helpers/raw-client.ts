import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import WebSocket from 'ws';

/** A hand-driven minion connection, to send what a real minion never would. */
export class RawClient {
  ws: WebSocket;
  inbox: Array<Record<string, unknown>> = [];
  closed = false;
  /** Waiting `next` calls, woken by each frame and by the close. */
  private readonly wakers = new Set<() => void>();
  /** `localAddress` picks the source address (127.0.0.2 is a second source on Linux loopback). */
  constructor(port: number, localAddress?: string) {
    this.ws = new WebSocket(`wss://127.0.0.1:${port}/ws`, { rejectUnauthorized: false, ...(localAddress ? { localAddress } : {}) });
    this.ws.on('message', (d) => {
      this.inbox.push(JSON.parse(d.toString()) as Record<string, unknown>);
      this.wakeAll();
    });
    this.ws.on('close', () => {
      this.closed = true;
      this.wakeAll();
    });
  }
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }
  binding(): string {
    const s = (this.ws as unknown as { _socket: TLSSocket })._socket;
    return s.exportKeyingMaterial(32, 'EXPORTER-brine-channel-binding', Buffer.alloc(0)).toString('base64');
  }
  send(obj: unknown): void {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }
  private wakeAll(): void {
    for (const w of [...this.wakers]) w();
  }
  /** The first frame of `type` (any type without one), waiting up to `timeoutMs` for it. */
  async next(type?: string, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.inbox.findIndex((m) => type === undefined || m.type === type);
      if (i >= 0) return this.inbox.splice(i, 1)[0]!;
      if (this.closed) throw new Error(`closed while waiting for ${type}; inbox ${JSON.stringify(this.inbox)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame ${type ?? '(any)'} within ${timeoutMs} ms; inbox ${JSON.stringify(this.inbox)}`);
      // a frame, the close or the deadline, whichever comes first
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.wakers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.wakers.add(done);
      });
    }
  }
}

export function keyPair(): { pub: string; priv: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { pub: publicKey.export({ type: 'spki', format: 'pem' }).toString(), priv: privateKey };
}

export function authSig(priv: KeyObject, minion: string, nonce: string, binding: string): string {
  return sign(null, Buffer.from(`brine-auth-v1\n${minion}\n${nonce}\n${binding}`), priv).toString('base64');
}
