import type { LowChunk, StateReturn } from '@brine/core';

/**
 * Global state arguments Salt acts on that Brine does not: a state that sets one fails with the
 * reason instead of running as if the argument were not there. (`reload_modules` is not among
 * them: Brine looks execution functions up at each call, so nothing is ever stale to reload.)
 */
const UNSUPPORTED: Record<string, string> = {
  reload_grains:
    "reload_grains is not supported: Brine collects the minion's grains when a job starts; run the states that need the new grains in a second state.apply",
  reload_pillar:
    'reload_pillar is not supported: the pillar is compiled for the whole job before it starts; run the states that need the new pillar in a second state.apply',
  fire_event: 'fire_event is not supported: every state result is already an event on the master (brine events, state results of the job)',
  aggregate: 'aggregate is not supported: Brine runs each pkg state on its own',
  runas_password: 'runas_password is not supported: it is for Windows minions, which Brine does not run on',
};

const KEYS = Object.keys(UNSUPPORTED);

/** A failed result for the first unsupported argument the chunk sets (a false value is no use of it). */
export function refuseUnsupported(chunk: LowChunk): StateReturn | undefined {
  // every state asks: an indexed loop, no pair per key
  for (let i = 0; i < KEYS.length; i++) {
    const key = KEYS[i]!;
    const v = (chunk as Record<string, unknown>)[key];
    if (v === undefined || v === null || v === false) continue;
    return { name: String(chunk.name ?? chunk.__id__), result: false, changes: {}, comment: UNSUPPORTED[key]! };
  }
  return undefined;
}
