/** Seconds of history the admission rate is measured over. */
const SPAN = 5;

/**
 * How fast this master admits minions right now, and the windows it tells them from that: when
 * a refused connection should come back (busy), and over how long a minion spreads its
 * reconnect when its connection drops (welcome). Counts per second over the last few seconds.
 */
export class AdmissionLoad {
  private readonly admitted = new Array<number>(SPAN).fill(0);
  private readonly refused = new Array<number>(SPAN).fill(0);
  private second = Math.floor(Date.now() / 1000);

  private slot(): number {
    const now = Math.floor(Date.now() / 1000);
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
  constructor(assumedRate: number) {
    this.assumed = assumedRate > 0 ? assumedRate : 100;
  }

  /**
   * What the master admits a second when pressed: the best of the last few whole seconds (the
   * current one is still counting), or the assumed rate while none is measured.
   */
  capacity(): number {
    const now = this.slot();
    let best = 0;
    for (let i = 0; i < SPAN; i++) if (i !== now) best = Math.max(best, this.admitted[i]!);
    return best > 0 ? Math.max(best, 10) : this.assumed;
  }

  /**
   * Seconds a refused connection may wait: enough for the master to admit the minions waiting
   * and those it refused lately (who come back spread over their windows), 1 to 60 s.
   */
  retryAfter(waiting: number): number {
    const refused = this.refused.reduce((a, b) => a + b, 0);
    const seconds = Math.ceil((waiting + refused) / this.capacity());
    return Math.min(60, Math.max(1, seconds));
  }
}

/** The welcome's reconnect window: the fleet connected at the rate the master readmits, at most 10 minutes. */
export function reconnectWindow(connected: number, reconnectRate: number): number {
  if (!(reconnectRate > 0)) return 0;
  return Math.min(600, Math.round((connected / reconnectRate) * 10) / 10);
}
