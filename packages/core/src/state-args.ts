import { REQUISITE_KEYS } from './tag.js';
import type { LowChunk } from './types.js';
import type { ArgSpec, ArgType, StateFunction, StateRegistry } from './state-module.js';
import { invalidKeywordsMessage, saltRefusesUnknownArgs } from './salt-signatures.js';

/**
 * Keys of a low chunk that belong to the state system rather than to the state function: the
 * injected keys, requisites and the global state arguments the runtime handles for every state
 * (unless, onlyif, creates, failhard, retry, parallel, check_cmd, ...). A function that declares
 * one of them in its `args` (cmd.run declares `runas`) still receives it.
 */
export const GLOBAL_STATE_ARGS: ReadonlySet<string> = new Set<string>([
  'state',
  'fun',
  'order',
  ...REQUISITE_KEYS,
  'require_any_in',
  'watch_any_in',
  'onchanges_any_in',
  'onfail_any_in',
  'onfail_all',
  'onfail_stop',
  'unless',
  'onlyif',
  'creates',
  'failhard',
  'retry',
  'parallel',
  'check_cmd',
  'reload_modules',
  'reload_grains',
  'reload_pillar',
  'names',
  'fire_event',
  'runas',
  'runas_password',
  'saltenv',
  'queue',
  'state_output',
  'state_output_diff',
  'test',
  'aggregate',
  'sfun',
]);

/** Whether a chunk key is the state system's rather than the function's. */
export function isGlobalStateArg(key: string): boolean {
  return key.startsWith('__') || GLOBAL_STATE_ARGS.has(key);
}

const TYPE_WORDS: Record<ArgType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  list: 'a list',
  dict: 'a dict',
  any: 'anything',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a dict';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return TYPE_WORDS[typeof value as 'string' | 'number' | 'boolean'];
  }
  return typeof value;
}

function fits(value: unknown, type: ArgType): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'list':
      return Array.isArray(value);
    case 'dict':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** fits for a spec's type or list of types (every state binds its chunk: no list or closure per key). */
function fitsOne(value: unknown, type: ArgSpec['type']): boolean {
  if (!Array.isArray(type)) return fits(value, type);
  for (let i = 0; i < type.length; i++) if (fits(value, type[i]!)) return true;
  return false;
}

function expected(spec: ArgSpec): string {
  const words = (Array.isArray(spec.type) ? spec.type : [spec.type]).map((t) => TYPE_WORDS[t]);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words[0]!;
}

/**
 * The arguments a state function gets out of a chunk: `name`, its declared arguments
 * (type-checked, defaults filled unless `fillDefaults` is false) and, when the function takes
 * them, extra keys. Global state arguments are left to the runtime. A key the function does not
 * declare is ignored, as Salt's `**kwargs` ignores it (it stays in the chunk, `ctx.low`, where a
 * file template reads it: `stateExtraArgs`), except where Salt's function has no `**kwargs`
 * (`strictArgs`, or Salt's signature). When the chunk does not fit the function the answer is
 * the reason, worded for the state's comment.
 */
export function bindStateArgs(
  fullName: string,
  fn: StateFunction,
  chunk: LowChunk,
  fillDefaults = true,
): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = { name: chunk.name };
  const refused: string[] = [];
  // for-in, not Object.entries: no pair array per key (a run binds thousands of chunks)
  for (const key in chunk) {
    if (key === 'name' || !Object.hasOwn(chunk, key)) continue;
    const value = chunk[key];
    const spec = fn.args[key];
    if (spec) {
      if (value === null || value === undefined) continue;
      if (!fitsOne(value, spec.type)) {
        return { error: `Argument '${key}' of state ${fullName} must be ${expected(spec)}, not ${describe(value)}` };
      }
      args[key] = value;
    } else if (isGlobalStateArg(key)) {
      // handled by the runtime around the function, never passed to it
    } else if (fn.extraArgs) {
      args[key] = value;
    } else if (fn.strictArgs || saltRefusesUnknownArgs(fullName)) {
      refused.push(key);
    }
  }
  if (refused.length > 0) return { error: invalidKeywordsMessage(fullName, refused) };
  for (const key in fn.args) {
    const spec = fn.args[key]!;
    if (key in args || !Object.hasOwn(fn.args, key)) continue;
    if (spec.required) return { error: `Missing required argument '${key}' for state ${fullName}` };
    if (fillDefaults && spec.default !== undefined) args[key] = typeof spec.default === 'object' ? structuredClone(spec.default) : spec.default;
  }
  return { args };
}

/** The chunk's keyword arguments the function does not declare (Salt's `**kwargs`: a template's extra context). */
export function stateExtraArgs(fn: StateFunction, chunk: LowChunk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chunk)) {
    if (key !== 'name' && !fn.args[key] && !isGlobalStateArg(key)) out[key] = value;
  }
  return out;
}

/** Whether a function takes a keyword it does not declare (for the compiler's warning). */
export function takesUnknownArgs(fullName: string, fn: StateFunction): 'passed' | 'ignored' | 'refused' {
  if (fn.extraArgs) return 'passed';
  return fn.strictArgs || saltRefusesUnknownArgs(fullName) ? 'refused' : 'ignored';
}

/** How the registry's `state.fun` takes `key` when it does not declare it (undefined: it does, or it takes anything). */
export function unknownArgOf(registry: StateRegistry, state: string, fun: string, key: string): 'ignored' | 'refused' | undefined {
  const found = registry.lookup(state, fun);
  if (!found || found.fn.args[key] || isGlobalStateArg(key)) return undefined;
  const how = takesUnknownArgs(`${state}.${fun}`, found.fn);
  return how === 'passed' ? undefined : how;
}
