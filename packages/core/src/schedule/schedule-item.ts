import { Cron } from 'croner';
import { coreErrors } from '../errors.js';
import { parseTimeSpec, type TimeSpec } from './schedule-time.js';

/** One entry of Salt's `schedule` option, checked and read: what the engine runs and when. */
export interface ScheduleItem {
  name: string;
  function: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  /** seconds + minutes + hours + days, in seconds. */
  interval?: number;
  cron?: Cron;
  when?: TimeSpec[];
  splay?: { start: number; end: number };
  range?: { start: TimeSpec; end: TimeSpec; invert: boolean };
  after?: TimeSpec;
  until?: TimeSpec;
  maxrunning: number;
  run_on_start: boolean;
  enabled: boolean;
  jid_include: boolean;
}

/** Keys of a `schedule` that set the whole scheduler rather than name an entry. */
export const SCHEDULE_GLOBAL_KEYS = ['enabled', 'skip_function', 'skip_during_range', 'splay'];

/** Keys a schedule entry may hold (Salt's SCHEDULE_CONF); others are warned about and ignored. */
export const SCHEDULE_KEYS = [
  'name',
  'function',
  'args',
  'kwargs',
  'seconds',
  'minutes',
  'hours',
  'days',
  'cron',
  'when',
  'splay',
  'range',
  'after',
  'until',
  'maxrunning',
  'run_on_start',
  'enabled',
  'jid_include',
  'return_job',
  'returner',
  'return_config',
  'return_kwargs',
  'metadata',
  'saved',
];

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Salt's options arrive as YAML or as `key=value` strings from the command line: both are read. */
function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

function bool(v: unknown, dflt: boolean): boolean | undefined {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return undefined;
}

/** croniter's six fields put the seconds last; croner wants them first. */
function cronOf(text: string): Cron {
  const parts = text.trim().split(/\s+/);
  const pattern = parts.length === 6 ? [parts[5], ...parts.slice(0, 5)].join(' ') : text;
  if (parts.length !== 5 && parts.length !== 6) throw new Error('five fields (minute hour day month weekday), or six with the seconds last');
  return new Cron(pattern, { mode: parts.length === 6 ? '6-part' : '5-part' });
}

/**
 * Reads one schedule entry. Throws BRINE_ERR_CORE_SCHEDULE naming the entry and `where` it came
 * from for what cannot run (no function, no time, an unreadable time or cron, options that
 * exclude each other); gives warnings for what is ignored (`returner`, unknown keys).
 */
export function parseScheduleItem(name: string, raw: unknown, where: string): { item: ScheduleItem; warnings: string[] } {
  const fail = (detail: string) => coreErrors.make('BRINE_ERR_CORE_SCHEDULE', { name, where, detail });
  if (!isDict(raw)) throw fail('an entry is a dictionary of options (function, seconds, ...)');
  const warnings: string[] = [];
  const fun = raw.function;
  if (typeof fun !== 'string' || !/^[\w.]+$/.test(fun)) throw fail("'function' must name a function, as test.ping");
  const args = raw.args ?? [];
  const kwargs = raw.kwargs ?? {};
  if (!Array.isArray(args)) throw fail("'args' must be a list");
  if (!isDict(kwargs)) throw fail("'kwargs' must be a dictionary");
  let interval: number | undefined;
  for (const [k, mult] of [
    ['seconds', 1],
    ['minutes', 60],
    ['hours', 3600],
    ['days', 86400],
  ] as const) {
    if (raw[k] === undefined) continue;
    const n = num(raw[k]);
    if (n === undefined || n < 0) throw fail(`'${k}' must be a number of ${k}, not ${JSON.stringify(raw[k])}`);
    interval = (interval ?? 0) + n * mult;
  }
  const timed = ['cron', 'when'].filter((k) => raw[k] !== undefined);
  if (timed.length > 1) throw fail("'when' and 'cron' cannot be used together");
  if (timed.length && interval !== undefined) throw fail(`'seconds', 'minutes', 'hours' or 'days' cannot be used with '${timed[0]}'`);
  if (interval === 0) throw fail('the interval is 0 seconds');
  const item: ScheduleItem = {
    name,
    function: fun,
    args,
    kwargs,
    maxrunning: 1,
    run_on_start: false,
    enabled: true,
    jid_include: true,
  };
  if (interval !== undefined) item.interval = interval;
  if (raw.cron !== undefined) {
    if (typeof raw.cron !== 'string') throw fail("'cron' must be a cron expression string");
    try {
      item.cron = cronOf(raw.cron);
    } catch (e) {
      throw fail(`cron '${raw.cron}' cannot be read: ${(e as Error).message}`);
    }
  }
  if (raw.when !== undefined) item.when = (Array.isArray(raw.when) ? raw.when : [raw.when]).map((w) => timeOf(w, "'when'", fail));
  if (interval === undefined && !item.cron && !item.when) throw fail("no time given: one of 'seconds', 'minutes', 'hours', 'days', 'cron' or 'when'");
  readOptions(raw, item, fail);
  if (raw.returner !== undefined) warnings.push(`'returner' is ignored: Brine stores the return on the master as a job`);
  if (raw.return_job !== undefined && bool(raw.return_job, true) !== true)
    warnings.push(`'return_job: false' is ignored: Brine stores every return on the master`);
  const unknown = Object.keys(raw).filter((k) => !SCHEDULE_KEYS.includes(k));
  if (unknown.length) warnings.push(`unknown options ignored: ${unknown.join(', ')}`);
  return { item, warnings };
}

function timeOf(v: unknown, what: string, fail: (d: string) => Error): TimeSpec {
  const spec = parseTimeSpec(v);
  if (!spec) {
    throw fail(
      `${what} ${JSON.stringify(v)} is not a time Brine reads (ISO-8601, 'YYYY-MM-DD HH:MM', 'MM/DD/YYYY HH:MM', '23:00', '11:00pm', 'Monday 5:00pm')`,
    );
  }
  return spec;
}

/** splay, range, after, until and the flags. */
function readOptions(raw: Record<string, unknown>, item: ScheduleItem, fail: (d: string) => Error): void {
  if (raw.splay !== undefined && raw.splay !== null) {
    const s = raw.splay;
    const start = isDict(s) ? num(s.start) : 1;
    const end = isDict(s) ? num(s.end) : num(s);
    if (start === undefined || end === undefined || end < start) throw fail("'splay' must be a number of seconds or {start, end} with end >= start");
    item.splay = { start, end };
  }
  if (raw.range !== undefined) {
    const r = raw.range;
    if (!isDict(r) || r.start === undefined || r.end === undefined) throw fail("'range' must be {start, end} (and invert)");
    const inv = bool(r.invert, false);
    if (inv === undefined) throw fail("'range: invert' must be true or false");
    item.range = { start: timeOf(r.start, "'range' start", fail), end: timeOf(r.end, "'range' end", fail), invert: inv };
  }
  if (raw.after !== undefined) item.after = timeOf(raw.after, "'after'", fail);
  if (raw.until !== undefined) item.until = timeOf(raw.until, "'until'", fail);
  if (raw.maxrunning !== undefined) {
    const m = num(raw.maxrunning);
    if (m === undefined || m < 1 || !Number.isInteger(m)) throw fail("'maxrunning' must be a whole number of at least 1");
    item.maxrunning = m;
  }
  for (const k of ['run_on_start', 'enabled', 'jid_include'] as const) {
    const b = bool(raw[k], item[k]);
    if (b === undefined) throw fail(`'${k}' must be true or false`);
    item[k] = b;
  }
}
