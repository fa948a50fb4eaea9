import type { KeyObject } from 'node:crypto';
import type { WebSocket } from 'ws';

/** One minion connection; `minion` is set once its key signature checked out. */
export interface Session {
  ws: WebSocket;
  peer: string;
  /** The peer's IP address (autosign_networks). */
  address: string;
  binding: string;
  claimed?: string;
  key?: KeyObject;
  nonce?: string;
  minion?: string;
  /** Jobs sent to (or reported running by) this minion that have not returned. */
  running: Set<string>;
  grains: Record<string, unknown>;
  started: boolean;
  /** A `brine call` session: beside the minion's daemon session, never replacing it; sent no jobs. */
  call?: boolean;
  /** The spool backlog the minion reported as it connected (metrics). */
  spool?: number;
  /** The connection resumed an earlier TLS session (set only when it did). */
  resumed?: true;
}
