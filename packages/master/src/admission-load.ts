/** Seconds of history the admission rate is measured over. */
const SPAN = 5;

/**
 * What telling a minion "busy" costs the master, in admissions: a TLS handshake, the WebSocket
 * upgrade and a frame, against those plus the hello, the signature and the welcome.
 */
const REFUSAL_COST = 0.5;

/**
 * Seconds before the queue would run dry that the first refused minion is asked back: its new
 * connection reaches the front of the queue with work still ahead of it.
 */
const LEAD_S = 1;

/** How wide each refused minion's window is: it comes back at a random moment inside it. */
const SPREAD_S = 1;

/** The longest a minion is asked to stay away (the minion caps what it hears at 600 s). */
const MAX_WAIT_S = 600;

/** When a refused minion comes back, in seconds from now: at a random moment from `from` to `to`. */
export interface BusyWindow {
  from: number;
  to: number;
}

/**
 * How fast this master admits minions right now, and the windows it tells them from that: when
 * a refused connection should come back (busy), and over how long a minion spreads its
 * reconnect when its connection drops (welcome). Counts per second over the last few seconds.
 */
export class AdmissionLoad {
  private readonly admitted = new Array<number>(SPAN).fill(0);
  private readonly refused = new Array<number>(SPAN).fill(0);
  private readonly now: () => number;
  private second: number;
  /** Until when (ms on this clock) the refused minions already told are expected back, one after another. */
  private booked = 0;

  private slot(): number {
    const now = Math.floor(this.now() / 1000);
    // seconds that passed without a note are zero
    for (let s = this.second + 1; s <= now && s <= this.second + SPAN; s++) {
      this.admitted[s % SPAN] = 0;
      this.refused[s % SPAN] = 0;
    }
    this.second = now;
    return now % SPAN;
  }

  noteAdmitted(): void {
    this.admitted[this.slot()]!++;
  }

  noteRefused(): void {
    this.refused[this.slot()]!++;
  }

  /** The rate assumed before any is measured (the configured reconnect_rate). */
  private readonly assumed: number;
  /** `now`: the clock, in milliseconds (tests give their own). */
  constructor(assumedRate: number, now: () => number = Date.now) {
    this.assumed = assumedRate > 0 ? assumedRate : 100;
    this.now = now;
    this.second = Math.floor(now() / 1000);
  }

  /**
   * What the master admits a second when pressed: the best of the last few whole seconds (the
   * current one is still counting), a refusal counted as the share of an admission it costs, or
   * the assumed rate while none is measured. Refusals count: a master busy refusing admits
   * fewer, and would otherwise book the refused too far apart once it stops.
   */
  capacity(): number {
    const now = this.slot();
    let best = 0;
    for (let i = 0; i < SPAN; i++) if (i !== now) best = Math.max(best, this.admitted[i]! + REFUSAL_COST * this.refused[i]!);
    return best > 0 ? Math.max(best, 10) : this.assumed;
  }

  /**
   * The window of a connection refused now, with `waiting` minions queued ahead. The refused
   * are booked one after another at the rate the master admits, from when the queue is nearly
   * worked off: none comes back to a queue still full (to be refused again, another handshake
   * each) and none leaves the master idle waiting for a window to open. A random window of
   * (queue + refused) / rate did both: most came back too early, the last ones far too late.
   */
  window(waiting: number): BusyWindow {
    const now = this.now();
    const rate = this.capacity();
    const drained = now + Math.max(0, waiting / rate - LEAD_S) * 1000;
    const start = Math.max(this.booked, drained);
    this.booked = start + 1000 / rate;
    const from = Math.min(MAX_WAIT_S - SPREAD_S, (start - now) / 1000);
    return { from: round2(from), to: round2(from + SPREAD_S) };
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The welcome's reconnect window: the fleet connected at the rate the master readmits, at most 10 minutes. */
export function reconnectWindow(connected: number, reconnectRate: number): number {
  if (!(reconnectRate > 0)) return 0;
  return Math.min(600, Math.round((connected / reconnectRate) * 10) / 10);
}
