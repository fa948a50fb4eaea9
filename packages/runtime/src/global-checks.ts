import { existsSync } from 'node:fs';
import { envDict, type CommandOptions, type CommandRunner, type ExecCaller, type LowChunk, type StateReturn } from '@brine/core';

/**
 * The global state arguments checked around every state function: `onlyif`, `unless` and
 * `creates` before it (a skip is a success without changes, marked `skip_watch`), `check_cmd`
 * after it (a skip too), and `retry` around both.
 */

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

/** The options a condition command runs with: the state's own cwd, env, runas and shell. */
function checkOptions(chunk: LowChunk): CommandOptions {
  const o: CommandOptions = {};
  if (typeof chunk.cwd === 'string') o.cwd = chunk.cwd;
  if (typeof chunk.runas === 'string') o.runas = chunk.runas;
  if (typeof chunk.shell === 'string') o.shell = chunk.shell;
  // The runner merges it over the current environment.
  const env = envDict(chunk.env);
  if (env !== undefined && env !== 'invalid') o.env = env;
  return o;
}

type Verdict = { ok: boolean; error?: string };

/** One condition entry: a boolean as is, a string as a shell command (true when it exits 0). */
async function holds(entry: unknown, key: string, cmd: CommandRunner, opts: CommandOptions): Promise<Verdict> {
  if (typeof entry === 'boolean') return { ok: entry };
  if (typeof entry === 'string') {
    const r = await cmd.run(entry, opts);
    return { ok: r.retcode === 0 };
  }
  return { ok: false, error: `${key} entries must be shell commands or booleans (got ${JSON.stringify(entry)})` };
}

/** Python's truth of a value. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** Salt's traverse_dict_and_list for `get_return` (a:b:0 through dicts and lists). */
function dig(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split(':')) {
    if (Array.isArray(cur) && /^\d+$/.test(part)) cur = cur[Number(part)];
    else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && part in cur) cur = (cur as Record<string, unknown>)[part];
    else return undefined;
  }
  return cur;
}

/**
 * A `- fun: mod.fun` entry (with `args:` and the other keys as keywords), as Salt checks it:
 * a non-zero retcode set by the function means the condition failed, otherwise the value's
 * truth (or that of the `get_return` path in it) decides.
 */
async function funHolds(entry: Record<string, unknown>, key: string, exec: ExecCaller | undefined): Promise<Verdict> {
  if (!exec) return { ok: false, error: `${key} entries with fun: need execution functions, which are not available here` };
  const { fun, args, get_return: getReturn, ...kwargs } = entry;
  const list = args === undefined || args === null ? [] : Array.isArray(args) ? args : [args];
  let r: { return: unknown; retcode: number };
  try {
    r = await exec.call(String(fun), list, kwargs);
  } catch (err) {
    return { ok: false, error: `${key} function ${String(fun)} failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (r.retcode !== 0) return { ok: false };
  return { ok: truthy(typeof getReturn === 'string' ? dig(r.return, getReturn) : r.return) };
}

/** One entry of onlyif or unless: a boolean, a shell command, or a `fun:` call; a dict without fun is Salt's comment. */
async function conditionHolds(
  entry: unknown,
  key: string,
  cmd: CommandRunner,
  opts: CommandOptions,
  exec: ExecCaller | undefined,
): Promise<Verdict | { noFun: string }> {
  if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
    const e = entry as Record<string, unknown>;
    if (!('fun' in e)) return { noFun: `no \`fun\` argument in ${key}: ${JSON.stringify(e)}` };
    return funHolds(e, key, exec);
  }
  return holds(entry, key, cmd, opts);
}

function skip(chunk: LowChunk, comment: string): StateReturn {
  return { name: chunk.name, result: true, changes: {}, comment, skip_watch: true };
}

function failed(chunk: LowChunk, comment: string): StateReturn {
  return { name: chunk.name, result: false, changes: {}, comment };
}

/** What one of onlyif / unless / creates concluded: skip the state or not, and why. */
interface CheckVerdict {
  skip: boolean;
  comment: string;
}

/** onlyif: the first entry that fails skips the state. */
async function onlyifVerdict(chunk: LowChunk, cmd: CommandRunner, opts: () => CommandOptions, exec?: ExecCaller): Promise<CheckVerdict | string> {
  const v: CheckVerdict = { skip: false, comment: '' };
  for (const entry of asList(chunk.onlyif)) {
    const h = await conditionHolds(entry, 'onlyif', cmd, opts(), exec);
    if ('noFun' in h) return { skip: false, comment: h.noFun };
    if (h.error) return h.error;
    if (!h.ok) return { skip: true, comment: 'onlyif condition is false' };
    v.comment = 'onlyif condition is true';
  }
  return v;
}

/** unless: the state is skipped only when every entry succeeds; the first that fails ends it. */
async function unlessVerdict(chunk: LowChunk, cmd: CommandRunner, opts: () => CommandOptions, exec?: ExecCaller): Promise<CheckVerdict | string> {
  const v: CheckVerdict = { skip: false, comment: '' };
  for (const entry of asList(chunk.unless)) {
    const h = await conditionHolds(entry, 'unless', cmd, opts(), exec);
    if ('noFun' in h) return { skip: false, comment: h.noFun };
    if (h.error) return h.error;
    if (!h.ok) return { skip: false, comment: 'unless condition is false' };
    Object.assign(v, { skip: true, comment: 'unless condition is true' });
  }
  return v;
}

function createsVerdict(chunk: LowChunk): CheckVerdict {
  const paths = asList(chunk.creates).map(String);
  if (paths.length > 0 && paths.every((p) => existsSync(p))) {
    return { skip: true, comment: Array.isArray(chunk.creates) ? 'All files in creates exist' : `${paths[0]} exists` };
  }
  return { skip: false, comment: 'Creates files not found' };
}

/** Whether the chunk sets onlyif, unless or creates (most do not: no call, no await for them). */
export function hasPreconditions(chunk: LowChunk): boolean {
  return (
    (chunk.onlyif !== undefined && chunk.onlyif !== null) ||
    (chunk.unless !== undefined && chunk.unless !== null) ||
    (chunk.creates !== undefined && chunk.creates !== null)
  );
}

/**
 * The result that replaces the state when a condition says not to run it; undefined to run it.
 * As Salt, every condition given is checked (onlyif, then unless, then creates) and any one of
 * them skips the state; the skip's comment lists each one's conclusion, a line each.
 */
export async function preconditions(chunk: LowChunk, cmd: CommandRunner, exec?: ExecCaller): Promise<StateReturn | undefined> {
  let built: CommandOptions | undefined;
  const opts = () => (built ??= checkOptions(chunk));
  const verdicts: CheckVerdict[] = [];
  for (const [key, check] of [
    ['onlyif', () => onlyifVerdict(chunk, cmd, opts, exec)],
    ['unless', () => unlessVerdict(chunk, cmd, opts, exec)],
    ['creates', async () => createsVerdict(chunk)],
  ] as const) {
    if (chunk[key] === undefined || chunk[key] === null) continue;
    const v = await check();
    if (typeof v === 'string') return failed(chunk, v);
    verdicts.push(v);
  }
  if (!verdicts.some((v) => v.skip)) return undefined;
  return skip(chunk, verdicts.map((v) => v.comment).join('\n'));
}

/** `check_cmd`: after the state, commands that must all exit 0; their verdict is the result. */
export async function checkCommand(chunk: LowChunk, ret: StateReturn, cmd: CommandRunner): Promise<StateReturn> {
  const opts = checkOptions(chunk);
  for (const entry of asList(chunk.check_cmd)) {
    const v = await holds(entry, 'check_cmd', cmd, opts);
    if (v.error) return { ...ret, result: false, comment: v.error };
    if (!v.ok) return { ...ret, result: false, comment: 'check_cmd determined the state failed', skip_watch: true };
  }
  return { ...ret, result: true, comment: 'check_cmd determined the state succeeded' };
}

export interface RetryPolicy {
  attempts: number;
  /** The result that ends the retries (Salt's `until`). */
  until: boolean | null;
  /** Seconds between attempts. */
  interval: number;
  /** Up to this many more seconds, at random. */
  splay: number;
}

/**
 * `retry` as Salt validates it: `True` (or any value that is neither a dict nor a bool) gives the
 * defaults, `False` zero attempts; in a dict each key keeps Salt's default unless it has Salt's
 * type (until a bool; attempts, interval and splay integers, 0 and below too).
 */
export function retryPolicy(v: unknown): RetryPolicy | undefined {
  if (v === undefined) return undefined;
  const p: RetryPolicy = { attempts: 2, until: true, interval: 30, splay: 0 };
  if (v === false) return { ...p, attempts: 0 };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return p;
  const o = v as Record<string, unknown>;
  if (Number.isInteger(o.attempts)) p.attempts = o.attempts as number;
  if (typeof o.until === 'boolean') p.until = o.until;
  if (Number.isInteger(o.interval)) p.interval = o.interval as number;
  if (Number.isInteger(o.splay)) p.splay = o.splay as number;
  return p;
}

/** Python's spelling of a result, as Salt writes it in retry comments. */
export function pyResult(r: boolean | null): string {
  return r === null ? 'None' : r ? 'True' : 'False';
}
