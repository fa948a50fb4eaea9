import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { parseScheduleItem, SCHEDULE_GLOBAL_KEYS, ScheduleEngine, type Logger, type ScheduleClock, type ScheduleEntry, type ScheduleItem } from '@brine/core';
import { minionErrors } from './errors.js';

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

const GLOBAL_KEYS = SCHEDULE_GLOBAL_KEYS;

/** Where `schedule.add` and friends keep the schedule, as Salt's minion.d/_schedule.conf. */
export const SCHEDULE_FILE = '_schedule.conf';

export interface MinionScheduleDeps {
  dataDir: string;
  /** The `schedule` option of the minion config. */
  config: Dict;
  log: Logger;
  /** Runs one entry (a job recorded on the master); resolves when it returned. */
  run(item: ScheduleItem): Promise<void>;
  clock?: ScheduleClock;
}

/** Salt's answer to the schedule.* functions that change something. */
export interface ScheduleAnswer {
  comment: string | string[];
  result: boolean;
  changes?: Dict;
}

/**
 * The minion's schedule as Salt keeps it: the config's `schedule` merged with the saved one
 * (`_schedule.conf` in the data dir, written by every change unless `persist=False`), and the
 * pillar's `schedule` over them (changed in memory only, like Salt's `where: pillar`).
 */
export class MinionSchedule {
  readonly engine: ScheduleEngine;
  /** Salt's opts['schedule']: config entries, then the saved ones over them. */
  private opts: Dict;
  private pillar: Dict = {};
  private readonly file: string;
  private readonly deps: MinionScheduleDeps;

  constructor(deps: MinionScheduleDeps) {
    this.deps = deps;
    this.file = path.join(deps.dataDir, SCHEDULE_FILE);
    this.engine = new ScheduleEngine({ run: (item) => deps.run(item), log: deps.log, ...(deps.clock ? { clock: deps.clock } : {}) });
    this.opts = { ...deps.config, ...this.saved() };
  }

  /**
   * (Re)loads the schedule: the config and saved entries, and the `schedule` of this pillar when
   * one is given (a pillar refresh calls it again). Entries that did not change keep their time.
   */
  load(pillar?: Dict): void {
    if (pillar !== undefined) this.pillar = isDict(pillar.schedule) ? { ...pillar.schedule } : {};
    const entries: ScheduleEntry[] = [];
    const saved = this.saved();
    for (const [name, raw] of Object.entries(this.merged())) {
      if (GLOBAL_KEYS.includes(name)) continue;
      entries.push({ name, raw, where: name in this.pillar ? 'pillar' : name in saved ? this.file : 'minion config' });
    }
    const merged = this.merged();
    this.engine.enabled = merged.enabled !== false && merged.enabled !== 'false';
    for (const e of this.engine.load(entries)) this.deps.log.error({ event: 'schedule_refused', code: e.code }, e.message);
  }

  stop(): void {
    this.engine.stop();
  }

  private merged(): Dict {
    return { ...this.opts, ...this.pillar };
  }

  private saved(): Dict {
    if (!existsSync(this.file)) return {};
    try {
      const doc: unknown = parse(readFileSync(this.file, 'utf8'));
      return isDict(doc) && isDict(doc.schedule) ? doc.schedule : {};
    } catch (err) {
      this.deps.log.error({ event: 'schedule_file_unreadable', file: this.file, err }, `${this.file} cannot be read; the saved schedule is ignored`);
      return {};
    }
  }

  /** Writes every non-pillar entry, as Salt's persist does (atomically: a crash leaves the old file). */
  private persist(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, stringify({ schedule: this.opts }, { sortMapEntries: true }), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  private change(inPillar: boolean, persist: unknown): void {
    if (!inPillar && persist !== false && persist !== 'False' && persist !== 'false') this.persist();
    this.load();
  }

  /** Salt's schedule.list: the entries with `enabled` and `saved`, as YAML (or a dict). */
  list(a: { show_all?: unknown; show_disabled?: unknown; return_yaml?: unknown }): unknown {
    const saved = this.saved();
    const out: Dict = {};
    for (const [name, raw] of Object.entries(this.merged())) {
      if (GLOBAL_KEYS.includes(name)) {
        out[name] = raw;
        continue;
      }
      if (!isDict(raw) || (name.startsWith('__') && a.show_all !== true)) continue;
      const job: Dict = { name, ...raw };
      if (job.enabled === undefined) job.enabled = true;
      for (const [k, v] of Object.entries(job)) if (v === null || v === undefined) delete job[k];
      if (a.show_disabled === false && job.enabled === false) continue;
      out[name] = job;
    }
    if (a.return_yaml === false) return out;
    for (const [name, job] of Object.entries(out)) if (isDict(job)) job.saved = name in saved;
    return stringify({ schedule: out }, { sortMapEntries: true });
  }

  has(name: string): boolean {
    return !GLOBAL_KEYS.includes(name) && isDict(this.merged()[name]);
  }

  /** Salt's schedule.add; options that cannot run are refused with the coded error. */
  add(name: string, kw: Dict): ScheduleAnswer {
    if (this.has(name)) return { comment: `Job ${name} already exists in schedule.`, result: false, changes: {} };
    const entry = buildEntry(name, kw);
    if (kw.test === true) return { comment: `Job: ${name} would be added to schedule.`, result: true, changes: {} };
    this.opts[name] = entry;
    this.change(false, kw.persist);
    return { comment: `Added job: ${name} to schedule.`, result: true, changes: { [name]: 'added' } };
  }

  /** Salt's schedule.modify: the entry rebuilt from the options given (the function kept). */
  modify(name: string, kw: Dict): ScheduleAnswer {
    const cur = this.merged()[name];
    if (!this.has(name) || !isDict(cur)) return { comment: `Job ${name} does not exist in schedule.`, result: false, changes: {} };
    const entry = buildEntry(name, { function: cur.function, ...kw });
    if (JSON.stringify(sortKeys(entry)) === JSON.stringify(sortKeys(cur))) return { comment: `Job ${name} in correct state`, result: true, changes: {} };
    const changes = { [name]: { old: cur, new: entry } };
    if (kw.test === true) return { comment: `Job: ${name} would be modified in schedule.`, result: true, changes };
    const inPillar = name in this.pillar;
    (inPillar ? this.pillar : this.opts)[name] = entry;
    this.change(inPillar, kw.persist);
    return { comment: `Modified job: ${name} in schedule.`, result: true, changes };
  }

  delete(name: string, kw: Dict): ScheduleAnswer {
    if (!this.has(name)) return { comment: `Job ${name} does not exist.`, result: false, changes: {} };
    if (kw.test === true) return { comment: `Job: ${name} would be deleted from schedule.`, result: true, changes: {} };
    const inPillar = name in this.pillar;
    delete (inPillar ? this.pillar : this.opts)[name];
    this.change(inPillar, kw.persist);
    return { comment: `Deleted Job ${name} from schedule.`, result: true, changes: { [name]: 'removed' } };
  }

  /** Salt's enable_job / disable_job. */
  setJobEnabled(name: string, on: boolean, kw: Dict): ScheduleAnswer {
    const word = on ? 'enabled' : 'disabled';
    if (!this.has(name)) return { comment: `Job ${name} does not exist.`, result: false, changes: {} };
    if (kw.test === true) return { comment: `Job: ${name} would be ${word} in schedule.`, result: true, changes: {} };
    const inPillar = name in this.pillar;
    const where = inPillar ? this.pillar : this.opts;
    where[name] = { ...(where[name] as Dict), enabled: on };
    this.change(inPillar, kw.persist);
    return { comment: `${on ? 'Enabled' : 'Disabled'} Job ${name} in schedule.`, result: true, changes: { [name]: word } };
  }

  /** Salt's schedule.enable / disable: the whole scheduler. */
  setEnabled(on: boolean, kw: Dict): ScheduleAnswer {
    if (kw.test === true) return { comment: `Schedule would be ${on ? 'enabled' : 'disabled'}.`, result: true, changes: {} };
    this.opts.enabled = on;
    delete this.pillar.enabled;
    this.change(false, kw.persist);
    return { comment: `${on ? 'Enabled' : 'Disabled'} schedule on minion.`, result: true, changes: { schedule: on ? 'enabled' : 'disabled' } };
  }

  runJob(name: string, force: boolean): ScheduleAnswer {
    const cur = this.merged()[name];
    if (!this.has(name) || !isDict(cur)) return { comment: `Job ${name} does not exist.`, result: false };
    const enabled = cur.enabled !== false && cur.enabled !== 'false' && cur.enabled !== 'False';
    if (!enabled && !force) return { comment: `Job ${name} is disabled.`, result: true };
    // an entry the engine refused (a bad time) still runs now, as Salt runs its function
    if (!this.engine.runNow(name)) this.runOnce(name, cur);
    return { comment: `Scheduling Job ${name} on minion.`, result: true };
  }

  private runOnce(name: string, raw: Dict): void {
    const { item } = parseScheduleItem(name, { ...raw, seconds: 1, cron: undefined, when: undefined }, 'schedule.run_job');
    this.deps.run(item).catch((err: unknown) => this.deps.log.error({ event: 'schedule_failed', schedule: name, err }, `schedule '${name}' did not run`));
  }

  /** Salt's schedule.purge: every entry but the hidden `__` ones. */
  purge(kw: Dict): ScheduleAnswer {
    const comment: string[] = [];
    const changes: Dict = {};
    for (const name of Object.keys(this.merged())) {
      if (GLOBAL_KEYS.includes(name) || name.startsWith('__')) continue;
      if (kw.test === true) {
        comment.push(`Job: ${name} would be deleted from schedule.`);
        continue;
      }
      delete this.opts[name];
      delete this.pillar[name];
      comment.push(`Deleted job: ${name} from schedule.`);
      changes[name] = 'removed';
    }
    if (kw.test !== true) this.change(false, kw.persist);
    return { comment, result: true, changes };
  }
}

function sortKeys(d: Dict): Dict {
  return Object.fromEntries(Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Options of schedule.add/modify that are the call's, not the entry's. */
const CALL_OPTIONS = ['test', 'persist', 'offline', 'job_args', 'job_kwargs'];

/**
 * Salt's build_schedule_item: the entry `schedule.add` stores (`job_args`/`job_kwargs` become
 * `args`/`kwargs`; maxrunning 1, enabled and jid_include true unless given). Checked by the
 * engine's reader, so what would not run is refused here with its coded error.
 */
function buildEntry(name: string, kw: Dict): Dict {
  const entry: Dict = {};
  for (const [k, v] of Object.entries(kw)) if (!CALL_OPTIONS.includes(k) && v !== undefined) entry[k] = v;
  if (kw.job_args !== undefined) {
    if (!Array.isArray(kw.job_args)) throw minionErrors.make('BRINE_ERR_MINION_SCHEDULE', { name, detail: 'job_args is not a list' });
    entry.args = kw.job_args;
  }
  if (kw.job_kwargs !== undefined) {
    if (!isDict(kw.job_kwargs)) throw minionErrors.make('BRINE_ERR_MINION_SCHEDULE', { name, detail: 'job_kwargs is not a dictionary' });
    entry.kwargs = kw.job_kwargs;
  }
  entry.maxrunning ??= 1;
  entry.name ??= name;
  entry.enabled ??= true;
  entry.jid_include ??= true;
  parseScheduleItem(name, entry, 'schedule.add');
  return entry;
}
