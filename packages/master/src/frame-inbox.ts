import { Fifo } from './fifo.js';

/**
 * Frames from every minion, handled in arrival order for at most `turnMs` a turn of the event
 * loop. One poll of the loop hands over every socket that became readable (up to a thousand):
 * when a fleet's returns arrive together, handling each frame as its socket is read (parse,
 * validate, store, ack) would hold the loop for all of them in one go, and a longer turn lets
 * more arrive for the next. Here the reads only queue; the frames are worked off in slices
 * (`setImmediate`), so timers, the API and the store's commits get the loop in between. A
 * connection's close is queued as well: it comes after that connection's frames.
 *
 * Reading no longer waits for handling, so what waits here is bounded: a connection with
 * `maxWaiting` frames waiting, or one that reads while `maxBytes` wait in all, is paused (TCP then
 * holds the minion back, its data stays in the kernel's buffers) until the queue has drained to
 * half.
 */
export class FrameInbox<S> {
  /** Longest a turn spends on frames (the clock is read every 16 frames). */
  turnMs = 5;
  private readonly items = new Fifo<[S, Buffer | null]>();
  private scheduled = false;
  private readonly onFrame: (session: S, frame: Buffer) => void;
  private readonly onClose: (session: S) => void;
  private readonly flow: InboxFlow<S> | undefined;
  /** Frames waiting per connection, for those with any. */
  private readonly waiting = new Map<S, number>();
  private readonly paused = new Set<S>();
  /** Bytes of the frames waiting. */
  private bytes = 0;
  /** `maxBytes` was passed and the queue has not drained to half since: no connection resumes. */
  private full = false;

  constructor(onFrame: (session: S, frame: Buffer) => void, onClose: (session: S) => void, flow?: InboxFlow<S>) {
    this.onFrame = onFrame;
    this.onClose = onClose;
    this.flow = flow;
  }

  get length(): number {
    return this.items.length;
  }

  push(session: S, frame: Buffer): void {
    this.items.push([session, frame]);
    this.bytes += frame.length;
    const flow = this.flow;
    if (flow) {
      const n = (this.waiting.get(session) ?? 0) + 1;
      this.waiting.set(session, n);
      if (this.bytes > flow.maxBytes) this.full = true;
      if ((n >= flow.maxWaiting || this.full) && !this.paused.has(session)) {
        this.paused.add(session);
        flow.pause(session);
      }
    }
    this.schedule();
  }

  close(session: S): void {
    this.items.push([session, null]);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.work());
  }

  private work(): void {
    this.scheduled = false;
    const t0 = performance.now();
    for (let n = 1; ; n++) {
      const item = this.items.shift();
      if (!item) return;
      // the handlers catch their own errors: one bad frame must not stop the others
      if (item[1] === null) {
        this.waiting.delete(item[0]);
        this.paused.delete(item[0]);
        this.onClose(item[0]);
      } else {
        this.bytes -= item[1].length;
        if (this.flow) this.handled(item[0], this.flow);
        this.onFrame(item[0], item[1]);
      }
      if ((n & 15) === 0 && performance.now() - t0 > this.turnMs && this.items.length > 0) {
        this.schedule();
        return;
      }
    }
  }

  private handled(session: S, flow: InboxFlow<S>): void {
    const n = this.waiting.get(session)!;
    if (n === 1) this.waiting.delete(session);
    else this.waiting.set(session, n - 1);
    // resumed once half of what paused it is handled: not a pause and resume per frame
    if (this.full) {
      if (this.bytes > flow.maxBytes / 2) return;
      this.full = false;
      for (const s of [...this.paused]) {
        if ((this.waiting.get(s) ?? 0) > flow.maxWaiting >> 1) continue;
        this.paused.delete(s);
        flow.resume(s);
      }
    } else if (n <= flow.maxWaiting >> 1 && this.paused.delete(session)) flow.resume(session);
  }
}

/** How the inbox holds back a connection whose frames pile up. */
export interface InboxFlow<S> {
  maxWaiting: number;
  maxBytes: number;
  pause(session: S): void;
  resume(session: S): void;
}
