import { REQUISITE_KEYS } from '@brine/core';

/**
 * Keys of a low chunk that belong to the state system, not to the state function: the injected
 * keys, requisites and global state arguments. Argument validation skips them (unless the
 * function itself declares one, as cmd.run does with `runas`); the runtime handles them.
 */
export const GLOBAL_STATE_ARGS: ReadonlySet<string> = new Set<string>([
  'state',
  'fun',
  '__id__',
  '__sls__',
  '__env__',
  '__sls_included_from__',
  '__run_num__',
  '__reqs__',
  '__prereq__',
  '__prerequired__',
  '__agg__',
  '__orchestration_jid__',
  'order',
  ...REQUISITE_KEYS,
  'prereq_in',
  'use_in',
  'listen_in',
  'prerequired',
  'arg_bind',
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
  'watch_any_in',
  'require_any_in',
  'onchanges_any_in',
  'onfail_any_in',
  'onfail_stop',
  'onfail_all',
  'onlyif_any',
  'unless_any',
  'aggregate',
]);

/** Whether a chunk key is the state system's rather than the function's. */
export function isGlobalStateArg(key: string): boolean {
  return GLOBAL_STATE_ARGS.has(key) || key.startsWith('__');
}
