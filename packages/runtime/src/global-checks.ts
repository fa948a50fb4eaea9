import { existsSync } from 'node:fs';
import { envDict, type CommandOptions, type CommandRunner, type LowChunk, type StateReturn } from '@brine/core';

/**
 * The global state arguments checked around every state function: `onlyif`, `unless` and
 * `creates` before it (a skip is a success without changes, marked `skip_watch`), `check_cmd`
 * after it, and `retry` around both.
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

function skip(chunk: LowChunk, comment: string): StateReturn {
  return { name: chunk.name, result: true, changes: {}, comment, skip_watch: true };
}

function failed(chunk: LowChunk, comment: string): StateReturn {
  return { name: chunk.name, result: false, changes: {}, comment };
}

/** The result that replaces the state when a condition says not to run it; undefined to run it. */
export async function preconditions(chunk: LowChunk, cmd: CommandRunner): Promise<StateReturn | undefined> {
  let built: CommandOptions | undefined;
  const opts = () => (built ??= checkOptions(chunk));
  if (chunk.onlyif !== undefined && chunk.onlyif !== null) {
    for (const entry of asList(chunk.onlyif)) {
      const v = await holds(entry, 'onlyif', cmd, opts());
      if (v.error) return failed(chunk, v.error);
      if (!v.ok) return skip(chunk, 'onlyif condition is false');
    }
  }
  if (chunk.unless !== undefined && chunk.unless !== null) {
    let all = true;
    for (const entry of asList(chunk.unless)) {
      const v = await holds(entry, 'unless', cmd, opts());
      if (v.error) return failed(chunk, v.error);
      if (!v.ok) {
        all = false;
        break;
      }
    }
    if (all) return skip(chunk, 'unless condition is true');
  }
  if (chunk.creates !== undefined && chunk.creates !== null) {
    const paths = asList(chunk.creates).map(String);
    if (paths.length > 0 && paths.every((p) => existsSync(p))) {
      return skip(chunk, paths.length === 1 && !Array.isArray(chunk.creates) ? `${paths[0]} exists` : 'All files in creates exist');
    }
  }
  return undefined;
}

/** `check_cmd`: after a state that changed something, commands that must all exit 0. */
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

/** `retry: True` or `retry: {attempts, until, interval, splay}` with Salt's defaults. */
export function retryPolicy(v: unknown): RetryPolicy | undefined {
  if (v === undefined || v === null || v === false) return undefined;
  const p: RetryPolicy = { attempts: 2, until: true, interval: 30, splay: 0 };
  if (v === true) return p;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.attempts === 'number' && o.attempts >= 1) p.attempts = Math.floor(o.attempts);
  if (typeof o.until === 'boolean' || o.until === null) p.until = o.until as boolean | null;
  if (typeof o.interval === 'number' && o.interval >= 0) p.interval = o.interval;
  if (typeof o.splay === 'number' && o.splay >= 0) p.splay = o.splay;
  return p;
}

/** Python's spelling of a result, as Salt writes it in retry comments. */
export function pyResult(r: boolean | null): string {
  return r === null ? 'None' : r ? 'True' : 'False';
}
