import { hostname } from 'node:os';
import type { Logger } from '@brine/core';
import type { EventBus } from './event-bus.js';
import type { StoreBackend } from './store-backend.js';

/** Seconds between heartbeats; a master silent for three of them counts as gone. */
export const HEARTBEAT_SECONDS = 2;
export const FRESH_SECONDS = HEARTBEAT_SECONDS * 3;

/** host/pid: unique among live masters; a restarted master is a new member, its old rows expire. */
export function defaultClusterId(): string {
  return `${hostname()}/${process.pid}`;
}

/**
 * This master's link to the others sharing its PostgreSQL store. No protocol of its own: the
 * events table is the log every master follows (LISTEN/NOTIFY wakes the followers, a slow poll
 * covers a lost notification), heartbeats in `masters` and `presence` rows say which master each
 * minion is connected to. Other masters' events reach this master's bus through `deliver`, so
 * `brine events`, job waits and the console see the whole fleet from any master.
 */
export class ClusterLink {
  /** Every event up to here has been seen (or given up on); `seen` holds those above it. */
  private watermark = 0;
  private readonly seen = new Set<number>();
  private readonly gapSince = new Map<number, number>();
  private following: Promise<void> | undefined;
  private again = false;
  private timers: NodeJS.Timeout[] = [];
  private stopListening: (() => Promise<void>) | undefined;
  /** Minion -> master, refreshed with each heartbeat (and on demand). */
  private presenceCache: Record<string, string> = {};

  private readonly store: StoreBackend;
  private readonly bus: EventBus;
  readonly id: string;
  private readonly apiUrl: () => string;
  private readonly log: Logger;
  /** The fallback poll (tests set it out of reach, to see that NOTIFY alone wakes the follower). */
  private readonly pollMs: number;
  constructor(store: StoreBackend, bus: EventBus, id: string, apiUrl: () => string, log: Logger, opts: { pollMs?: number } = {}) {
    this.store = store;
    this.bus = bus;
    this.id = id;
    this.apiUrl = apiUrl;
    this.log = log;
    this.pollMs = opts.pollMs ?? 1000;
  }

  async start(): Promise<void> {
    this.watermark = await this.store.lastEventSeq();
    await this.beat();
    this.stopListening = await this.store.listen(
      () => this.follow(),
      (err) => this.log.warn({ event: 'cluster_listen_failed', err: err.message }, 'cluster: lost the event listener; reconnecting'),
    );
    // eslint-disable-next-line @typescript-eslint/no-floating-promises -- beat() logs its own failures
    const beat = setInterval(() => void this.beat(), HEARTBEAT_SECONDS * 1000);
    const poll = setInterval(() => this.follow(), this.pollMs);
    beat.unref();
    poll.unref();
    this.timers.push(beat, poll);
  }

  private async beat(): Promise<void> {
    try {
      await this.store.heartbeat(this.id, this.apiUrl());
      this.presenceCache = await this.store.presence(FRESH_SECONDS);
    } catch (err) {
      this.log.warn({ event: 'cluster_heartbeat_failed', err: (err as Error).message }, 'cluster: heartbeat failed');
    }
  }

  /** The master each minion is connected to (fresh masters only), as of now. */
  async presence(): Promise<Record<string, string>> {
    this.presenceCache = await this.store.presence(FRESH_SECONDS);
    return this.presenceCache;
  }

  /** Reads the events stored since the last one seen and delivers the other masters' ones. */
  follow(): void {
    if (this.following) {
      this.again = true;
      return;
    }
    this.following = (async () => {
      try {
        for (;;) {
          const from = this.watermark;
          const rows = await this.store.eventsAfter(from, 1000, this.id);
          for (const e of rows) {
            if (this.seen.has(e.seq)) continue;
            this.seen.add(e.seq);
            if (e.origin && e.origin !== this.id) this.bus.deliver(e.tag, e.data, e.created_at, e.origin);
          }
          this.advance();
          if (rows.length < 1000 || this.watermark === from) break;
        }
      } catch (err) {
        this.log.warn({ event: 'cluster_follow_failed', err: (err as Error).message }, 'cluster: reading events failed; retrying');
      } finally {
        this.following = undefined;
      }
      if (this.again) {
        this.again = false;
        this.follow();
      }
    })();
  }

  /**
   * Moves the watermark over the events seen. Sequence numbers are taken at insert and become
   * visible at commit, so another master's event may appear after a later one: a gap is waited
   * for (10 s) before it is taken for a rolled-back insert.
   */
  private advance(): void {
    const top = Math.max(this.watermark, ...this.seen);
    const now = Date.now();
    for (let s = this.watermark + 1; s <= top; s++) {
      if (this.seen.delete(s)) {
        this.gapSince.delete(s);
        this.watermark = s;
        continue;
      }
      const first = this.gapSince.get(s) ?? now;
      this.gapSince.set(s, first);
      if (now - first < 10_000) break;
      this.gapSince.delete(s);
      this.watermark = s;
    }
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.stopListening?.();
    await this.following;
    await this.store.clearPresence(this.id).catch(() => undefined);
  }
}
