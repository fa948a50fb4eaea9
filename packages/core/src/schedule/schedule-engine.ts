import { toBrineError, type BrineError } from '../errors.js';
import { parseScheduleItem, type ScheduleItem } from './schedule-item.js';
import { nextTime, resolveTime } from './schedule-time.js';

/** Time and chance, injected so that tests step a clock instead of waiting. */
export interface ScheduleClock {
  now(): number;
  setTimer(ms: number, fn: () => void): unknown;
  clearTimer(handle: unknown): void;
  /** A number in [0, 1), for splay. */
  random(): number;
}

export const systemClock: ScheduleClock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    // a schedule alone does not keep a process alive
    t.unref();
    return t;
  },
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
  random: () => Math.random(),
};

/** One entry as given: its options, and where it came from (a config file, pillar, the saved schedule). */
export interface ScheduleEntry {
  name: string;
  raw: unknown;
  where: string;
}

export interface ScheduleEngineDeps {
  clock?: ScheduleClock;
  /** Runs one entry; resolves when it finished (maxrunning counts it until then). */
  run(item: ScheduleItem): Promise<void>;
  log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

interface JobState {
  item: ScheduleItem;
  entry: ScheduleEntry;
  /** JSON of the options but `enabled`: a reload that leaves them alone keeps the job's next time. */
  key: string;
  /** When it is due, splay included; undefined when it will not run again (every `when` passed). */
  next?: number;
  /** The due time before splay: the next `when` or cron time is the one after it. */
  base?: number;
  running: number;
}

/** The options of an entry but `enabled` (and what only listings add): what its times depend on. */
function timingKey(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return JSON.stringify(raw);
  const { enabled: _e, saved: _s, ...rest } = raw as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** Wakes at least this often, so a change of the wall clock is seen within a minute. */
const MAX_SLEEP_MS = 60_000;
/** A timer may fire a little early; what is due within this is run. */
const EARLY_MS = 5;

/**
 * Salt's scheduler: entries by name, each run when its interval, cron, or `when` time comes
 * (plus splay), unless disabled (the entry, or the whole schedule), out of its range, before
 * `after`, past `until`, or already running `maxrunning` times. One timer for the earliest.
 */
export class ScheduleEngine {
  private readonly jobs = new Map<string, JobState>();
  private readonly clock: ScheduleClock;
  private readonly deps: ScheduleEngineDeps;
  private timer: unknown;
  private stopped = false;
  enabled = true;

  constructor(deps: ScheduleEngineDeps) {
    this.deps = deps;
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * Replaces the entries with these. An entry whose options did not change keeps its next time
   * (a pillar refresh does not restart every interval); a bad entry is left out and its coded
   * error returned, the others load.
   */
  load(entries: ScheduleEntry[]): BrineError[] {
    const errors: BrineError[] = [];
    const keep = new Set<string>();
    for (const entry of entries) {
      const key = timingKey(entry.raw);
      const old = this.jobs.get(entry.name);
      keep.add(entry.name);
      if (old && old.key === key) {
        // enabling or disabling an entry keeps its times, as Salt's enable_job does
        old.entry = entry;
        old.item.enabled =
          (entry.raw as { enabled?: unknown }).enabled !== false && String((entry.raw as { enabled?: unknown }).enabled).toLowerCase() !== 'false';
        continue;
      }
      try {
        const { item, warnings } = parseScheduleItem(entry.name, entry.raw, entry.where);
        for (const w of warnings) this.deps.log.warn({ event: 'schedule_warning', schedule: entry.name, where: entry.where }, `schedule '${entry.name}': ${w}`);
        const state: JobState = { item, entry, key, running: old?.running ?? 0 };
        this.jobs.set(entry.name, state);
        this.plan(state, this.clock.now(), true);
      } catch (err) {
        keep.delete(entry.name);
        errors.push(toBrineError(err));
      }
    }
    for (const name of [...this.jobs.keys()]) if (!keep.has(name)) this.jobs.delete(name);
    this.arm();
    return errors;
  }

  /** The entries loaded, in order. */
  entries(): ScheduleEntry[] {
    return [...this.jobs.values()].map((j) => j.entry);
  }

  item(name: string): ScheduleItem | undefined {
    return this.jobs.get(name)?.item;
  }

  /** When the entry runs next (ms since the epoch), splay included. */
  nextFireTime(name: string): number | undefined {
    return this.jobs.get(name)?.next;
  }

  /** How many runs of the entry are under way. */
  running(name: string): number {
    return this.jobs.get(name)?.running ?? 0;
  }

  /** Runs the entry now, whatever its time (Salt's schedule.run_job); false when there is none. */
  runNow(name: string): boolean {
    const job = this.jobs.get(name);
    if (!job || this.stopped) return false;
    this.start(job);
    return true;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  /** Sets the job's next time: the first one (at load), or the one after the run due at `base`. */
  private plan(job: JobState, now: number, first: boolean): void {
    const { item } = job;
    let base: number | undefined;
    if (first && item.run_on_start) base = now;
    else if (item.interval !== undefined) base = now + item.interval * 1000;
    else if (item.cron) base = item.cron.nextRun(new Date(Math.max(now, job.base ?? now)))?.getTime();
    else if (item.when) {
      const after = first ? now : Math.max(now, job.base ?? now);
      const times = item.when.map((w) => nextTime(w, after)).filter((t): t is number => t !== undefined);
      base = times.length ? Math.min(...times) : undefined;
    }
    job.base = base;
    job.next = base === undefined ? undefined : base + this.splay(item) * 1000;
  }

  private splay(item: ScheduleItem): number {
    if (!item.splay) return 0;
    const { start, end } = item.splay;
    return start + Math.floor(this.clock.random() * (end - start + 1));
  }

  private arm(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    let earliest: number | undefined;
    for (const j of this.jobs.values()) if (j.next !== undefined && (earliest === undefined || j.next < earliest)) earliest = j.next;
    if (earliest === undefined) return;
    const wait = Math.min(MAX_SLEEP_MS, Math.max(0, earliest - this.clock.now()));
    this.timer = this.clock.setTimer(wait, () => {
      this.timer = undefined;
      this.tick();
    });
  }

  /** Runs (or skips) what is due, plans each one's next time, sleeps until the next. */
  private tick(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    for (const job of this.jobs.values()) {
      if (job.next === undefined || job.next > now + EARLY_MS) continue;
      const skip = this.skipReason(job, now);
      if (skip) this.deps.log.info({ event: 'schedule_skipped', schedule: job.item.name, reason: skip }, `schedule '${job.item.name}' skipped: ${skip}`);
      else this.start(job);
      this.plan(job, now, false);
    }
    this.arm();
  }

  private skipReason(job: JobState, now: number): string | undefined {
    const { item } = job;
    if (!this.enabled) return 'the schedule is disabled';
    if (!item.enabled) return 'disabled';
    if (item.after && now < resolveTime(item.after, now)) return 'before its after time';
    if (item.until && now > resolveTime(item.until, now)) return 'past its until time';
    if (item.range) {
      const start = resolveTime(item.range.start, now);
      const end = resolveTime(item.range.end, now);
      if (end <= start) return 'invalid range: end must be later than start';
      const inside = start <= now && now <= end;
      if (item.range.invert ? inside : !inside) return item.range.invert ? 'in_skip_range' : 'not_in_range';
    }
    if (item.jid_include && job.running >= item.maxrunning) return `maxrunning (${item.maxrunning}) reached`;
    return undefined;
  }

  private start(job: JobState): void {
    job.running++;
    const { item } = job;
    let done: Promise<void>;
    try {
      done = this.deps.run(item);
    } catch (err) {
      done = Promise.reject(err);
    }
    done
      .catch((err: unknown) =>
        this.deps.log.error({ event: 'schedule_failed', schedule: item.name, err }, `schedule '${item.name}' did not run: ${String(err)}`),
      )
      .finally(() => {
        // a reload may have replaced the state: count down the one that holds the name now
        const cur = this.jobs.get(item.name);
        if (cur) cur.running = Math.max(0, cur.running - 1);
      });
  }
}
