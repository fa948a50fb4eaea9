import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import WebSocket from 'ws';
import { until } from './proc.js';

/** A hand-driven minion connection, to send what a real minion never would. */
export class RawClient {
  ws: WebSocket;
  inbox: Array<Record<string, unknown>> = [];
  closed = false;
  private wake?: () => void;
  /** `localAddress` picks the source address (127.0.0.2 is a second source on Linux loopback). */
  constructor(port: number, localAddress?: string) {
    this.ws = new WebSocket(`wss://127.0.0.1:${port}/ws`, { rejectUnauthorized: false, ...(localAddress ? { localAddress } : {}) });
    this.ws.on('message', (d) => {
      this.inbox.push(JSON.parse(d.toString()) as Record<string, unknown>);
      this.wake?.();
    });
    this.ws.on('close', () => {
      this.closed = true;
      this.wake?.();
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
  async next(type?: string): Promise<Record<string, unknown>> {
    return until(
      async () => {
        const i = this.inbox.findIndex((m) => type === undefined || m.type === type);
        if (i >= 0) return this.inbox.splice(i, 1)[0];
        if (this.closed) throw new Error(`closed while waiting for ${type}; inbox ${JSON.stringify(this.inbox)}`);
        await new Promise<void>((r) => (this.wake = r));
        return undefined;
      },
      `frame ${type}`,
      5000,
    );
  }
}

export function keyPair(): { pub: string; priv: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { pub: publicKey.export({ type: 'spki', format: 'pem' }).toString(), priv: privateKey };
}

export function authSig(priv: KeyObject, minion: string, nonce: string, binding: string): string {
  return sign(null, Buffer.from(`brine-auth-v1\n${minion}\n${nonce}\n${binding}`), priv).toString('base64');
}
