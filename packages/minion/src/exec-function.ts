import type { CommandRunner, FileClient, StateRegistry, StateResult } from '@brine/core';
import { minionErrors } from './errors.js';
import type { SyncedStates } from './sync-states.js';

export type ParamType = 'string' | 'number' | 'boolean' | 'list' | 'dict' | 'any';

export interface Param {
  name: string;
  type: ParamType | ParamType[];
  required?: boolean;
  default?: unknown;
}

export interface RunningJob {
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  started: string;
  pid: number;
}

/** What a remote execution function sees of the minion. */
export interface ExecContext {
  jid: string;
  grains: Record<string, unknown>;
  version: string;
  signal: AbortSignal;
  cmd: CommandRunner;
  functions(): string[];
  running(): RunningJob[];
  kill(jid: string): boolean;
  /** What state functions need of the minion (absent in unit tests of plain functions). */
  state?: StateHost;
}

/** The minion's side of a state run: the master channel, streaming, the run lock. */
export interface StateHost {
  id: string;
  /** The function being run (state.apply, ...). */
  fun: string;
  /** Asks the master; the answer is for this minion's authenticated id only. */
  request(op: string, args: Record<string, unknown>): Promise<unknown>;
  /** Streams one state result to the master (spooled until acknowledged). */
  emit(tag: string, result: StateResult): void;
  /** Claims the one state run of this minion; throws Salt's "is running as PID" message when taken. */
  claim(): () => void;
  /** salt:// through the master's file server, cached per minion. */
  files: FileClient;
  /** The shipped state modules (or a test's), before the tree's `_states/` are synced over them. */
  registry: StateRegistry;
  /** Salt's saltutil.sync_states: mirrors the tree's `_states/` of `saltenv` and loads them. */
  syncStates(saltenv: string): Promise<SyncedStates>;
}

/** The function's value, and the retcode of the job (0 unless the function says otherwise). */
export interface ExecResult {
  return: unknown;
  retcode?: number;
}

export interface ExecFunction {
  name: string;
  doc: string;
  params: Param[];
  /** Unknown keyword arguments are passed on in `kwargs` instead of refused (state.single). */
  extraKwargs?: boolean;
  run(args: Record<string, unknown>, ctx: ExecContext): Promise<ExecResult> | ExecResult;
}

function typeOf(v: unknown): ParamType {
  if (Array.isArray(v)) return 'list';
  if (v !== null && typeof v === 'object') return 'dict';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'any';
}

/**
 * Binds positional and keyword arguments to a function's parameters the way a Python call
 * would: too many positionals, unknown keywords, a value given twice, a missing required one
 * or a wrong type is a BRINE_ERR_MINION_BAD_ARGS error.
 */
export function bindArgs(fn: ExecFunction, arg: unknown[], kwarg: Record<string, unknown>): Record<string, unknown> {
  const bad = (detail: string) => minionErrors.make('BRINE_ERR_MINION_BAD_ARGS', { fun: fn.name, detail });
  if (arg.length > fn.params.length) {
    throw bad(`takes at most ${fn.params.length} positional argument(s) but ${arg.length} were given`);
  }
  const out: Record<string, unknown> = {};
  arg.forEach((v, i) => (out[fn.params[i]!.name] = v));
  for (const [k, v] of Object.entries(kwarg)) {
    if (k.startsWith('__')) continue;
    const p = fn.params.find((x) => x.name === k);
    if (!p && fn.extraKwargs) {
      ((out.kwargs ??= {}) as Record<string, unknown>)[k] = v;
      continue;
    }
    if (!p) throw bad(`unexpected keyword argument '${k}'`);
    if (k in out) throw bad(`got multiple values for argument '${k}'`);
    out[k] = v;
  }
  for (const p of fn.params) {
    if (!(p.name in out)) {
      if (p.required) throw bad(`missing required argument '${p.name}'`);
      if (p.default !== undefined) out[p.name] = p.default;
      continue;
    }
    const types = Array.isArray(p.type) ? p.type : [p.type];
    let v = out[p.name];
    // `key=value` on the command line arrives as text; numbers and booleans may be written so
    if (typeof v === 'string' && !types.includes('string') && !types.includes('any')) {
      if (types.includes('number') && v.trim() !== '' && !Number.isNaN(Number(v))) v = Number(v);
      else if (types.includes('boolean') && /^(true|false)$/i.test(v)) v = v.toLowerCase() === 'true';
      out[p.name] = v;
    }
    if (!types.includes('any') && !types.includes(typeOf(v))) {
      throw bad(`argument '${p.name}' must be ${types.join(' or ')}, got ${typeOf(v)}`);
    }
  }
  return out;
}
