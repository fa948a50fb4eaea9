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
  | { t: 'data'; id: number; data: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'close'; id: number };

export type ToTlsThread =
  | { t: 'write'; id: number; data: Uint8Array }
  | { t: 'pause'; id: number }
  | { t: 'resume'; id: number }
  | { t: 'end'; id: number }
  | { t: 'destroy'; id: number }
  | { t: 'close' };
