import type { Duplex } from 'node:stream';
import type { MinionHub, Session } from './hub.js';

/**
 * A held ack waits at most this long for a frame to ride with (the minion's spool keeps its item
 * meanwhile). Longer than a fleet's burst of returns (a ping of 10,000 minions takes 1-2 s: held
 * acks written in its middle, each minion deleting its item in a commit of its own, took both
 * sides' cores from the returns still coming) and than the pause before a sequence's next job (a
 * script's next `brine run`, an orchestration's next step): one write and one spool commit per
 * minion and job instead of two.
 */
export const ACK_HOLD_MS = 5000;
/** The window in which the first ACK_HOLD_AFTER acks are sent at once. */
const AT_ONCE_MS = 1000;
/** Acks sent at once per AT_ONCE_MS before they are held: a few minions are acked as before. */
export const ACK_HOLD_AFTER = 100;
/** Minions whose held acks are written per turn of the event loop (as publishing does). */
const FLUSH_PER_TURN = 200;

/**
 * Acknowledgements to minions (`ack`, `state_ack`), each queued only once what it acknowledges is
 * committed. A TLS write per ack costs the master about as much as the job frame itself, so acks
 * are held: a job frame sent to that minion meanwhile carries them in the same write (the socket
 * corked around them: one TLS record, one syscall), and the others go out ACK_HOLD_MS after the
 * oldest was held (a minion that crashed meanwhile sends its items again: the master stores a
 * return once, and acks it again). Only a burst is held: the first ACK_HOLD_AFTER acks of a
 * window go at once (a handful of minions sees no delay, and a minion stopped right
 * after its return has nothing left to resend). The order to a minion is kept (acks before the
 * frame), and a `brine call` session, which waits for its ack to exit, is acked at once.
 */
export class AckBatcher {
  private held = new Map<Session, Array<Buffer | string>>();
  private oldest: NodeJS.Timeout | undefined;
  private flushing: NodeJS.Immediate | undefined;
  /** Acks written with a job frame, and on their own (`/v1/stats`). */
  readonly stats = { acks_with_frame: 0, acks_alone: 0 };
  /** Acks sent at once per window before holding starts (see ACK_HOLD_AFTER). */
  holdAfter = ACK_HOLD_AFTER;
  /** The longest hold (see ACK_HOLD_MS). */
  holdMs = ACK_HOLD_MS;
  private sentAtOnce = 0;
  private window: NodeJS.Timeout | undefined;

  private readonly hub: Pick<MinionHub, 'send' | 'sessions'>;
  constructor(hub: Pick<MinionHub, 'send' | 'sessions'>) {
    this.hub = hub;
  }

  /** Queues an ack (committed already) for the minion of `session`. */
  ack(session: Session, frame: Buffer | string): void {
    if (session.call || this.sentAtOnce < this.holdAfter) {
      this.sentAtOnce++;
      if (!this.window) {
        this.window = setTimeout(() => {
          this.window = undefined;
          this.sentAtOnce = 0;
        }, AT_ONCE_MS);
        this.window.unref();
      }
      this.stats.acks_alone++;
      this.hub.send(session, frame);
      return;
    }
    const list = this.held.get(session);
    if (list) list.push(frame);
    else this.held.set(session, [frame]);
    this.oldest ??= setTimeout(() => this.flush(), this.holdMs);
    this.oldest.unref();
  }

  /** Sends `frame` to `session`, with the acks held for it in front, in one socket write. */
  sendWith(session: Session, frame: Buffer | string): void {
    const acks = this.held.get(session);
    if (!acks) return this.hub.send(session, frame);
    this.held.delete(session);
    // the hold runs from the oldest ack still held: once the frames of a sequence's next job
    // carried them all, that job's own returns start a hold of their own
    if (this.held.size === 0) this.clearTimers();
    this.stats.acks_with_frame += acks.length;
    this.corked(session, () => {
      for (const a of acks) this.hub.send(session, a);
      this.hub.send(session, frame);
    });
  }

  /** Sends every held ack, FLUSH_PER_TURN minions a turn (10,000 writes in one turn would block the loop). */
  flush(): void {
    this.clearTimers();
    if (this.flushing) return;
    let n = 0;
    for (const [session, acks] of this.held) {
      if (n++ === FLUSH_PER_TURN) {
        this.flushing = setImmediate(() => {
          this.flushing = undefined;
          this.flush();
        });
        return;
      }
      this.held.delete(session);
      // the minion may have reconnected since: its current session gets them (a closed one drops them, the spool resends)
      const to = session.ws.readyState === session.ws.OPEN ? session : session.minion !== undefined ? this.hub.sessions.get(session.minion) : undefined;
      if (!to) continue;
      this.stats.acks_alone += acks.length;
      this.corked(to, () => {
        for (const a of acks) this.hub.send(to, a);
      });
    }
  }

  close(): void {
    this.clearTimers();
    if (this.window) clearTimeout(this.window);
    this.window = undefined;
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    this.held.clear();
  }

  private clearTimers(): void {
    if (this.oldest) clearTimeout(this.oldest);
    this.oldest = undefined;
  }

  /** Runs `sends` with the session's socket corked: the frames leave in one write (one TLS record). */
  private corked(session: Session, sends: () => void): void {
    // ws keeps its socket in a field of its own; without one the frames go one by one
    const socket = (session.ws as unknown as { _socket?: Duplex })._socket;
    socket?.cork();
    try {
      sends();
    } finally {
      socket?.uncork();
    }
  }
}
