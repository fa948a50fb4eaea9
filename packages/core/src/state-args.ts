import { REQUISITE_KEYS } from './tag.js';
import type { LowChunk } from './types.js';
import type { ArgSpec, ArgType, StateFunction } from './state-module.js';

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

function expected(spec: ArgSpec): string {
  const words = (Array.isArray(spec.type) ? spec.type : [spec.type]).map((t) => TYPE_WORDS[t]);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words[0]!;
}

/**
 * The arguments a state function gets out of a chunk: `name`, its declared arguments
 * (type-checked, defaults filled unless `fillDefaults` is false) and, when the function takes
 * them, extra keys. Global state arguments are left to the runtime. When the chunk does not fit
 * the function the answer is the reason, worded for the state's comment.
 */
export function bindStateArgs(
  fullName: string,
  fn: StateFunction,
  chunk: LowChunk,
  fillDefaults = true,
): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = { name: chunk.name };
  for (const [key, value] of Object.entries(chunk)) {
    if (key === 'name') continue;
    const spec = fn.args[key];
    if (spec) {
      if (value === null || value === undefined) continue;
      const types = Array.isArray(spec.type) ? spec.type : [spec.type];
      if (!types.some((t) => fits(value, t))) {
        return { error: `Argument '${key}' of state ${fullName} must be ${expected(spec)}, not ${describe(value)}` };
      }
      args[key] = value;
    } else if (isGlobalStateArg(key)) {
      // handled by the runtime around the function, never passed to it
    } else if (fn.extraArgs) {
      args[key] = value;
    } else {
      const known = Object.keys(fn.args).sort();
      return {
        error: `Unknown argument '${key}' for state ${fullName}` + (known.length ? ` (it takes: name, ${known.join(', ')})` : ' (it takes only name)'),
      };
    }
  }
  for (const [key, spec] of Object.entries(fn.args)) {
    if (key in args) continue;
    if (spec.required) return { error: `Missing required argument '${key}' for state ${fullName}` };
    if (fillDefaults && spec.default !== undefined) args[key] = structuredClone(spec.default);
  }
  return { args };
}
