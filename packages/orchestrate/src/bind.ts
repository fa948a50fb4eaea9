import { chunkTag, findArgBindRefs, type LowChunk, type StateContext } from '@brine/core';
import type { MinionReturn } from './jobs.js';

/**
 * Argument binding across steps and minions. A step that reached minions answers a `new_state`
 * that later steps read with the runtime's own `${<state>:<id>:<path>}` references:
 *
 *     changes   the step's changes, as Salt shows them (`changes:ret:db1`)
 *     ret       each minion's return by id (`ret:db1`, or `ret` for the whole map)
 *     returns   the same as a list in minion order, for gathering (`returns[*]:ret`)
 *     minions   the ids that returned, sorted (`minions`, `minions[0]`)
 *     jid       the child job
 */
export interface StepState {
  changes: Record<string, unknown>;
  ret: Record<string, unknown>;
  returns: Array<{ minion: string; ret: unknown }>;
  minions: string[];
  jid: string | null;
}

export function stepState(jid: string | null, returns: Record<string, MinionReturn>, changes: Record<string, unknown>): StepState {
  const minions = Object.keys(returns).sort();
  const ret: Record<string, unknown> = {};
  for (const m of minions) ret[m] = returns[m]!.ret;
  return { changes, ret, returns: minions.map((minion) => ({ minion, ret: ret[minion] })), minions, jid };
}

/**
 * The arguments of this step that held references, with the values they resolved to (stored
 * with the step's result, so a replay shows what the step was given). Empty when none did.
 */
export function boundArguments(ctx: StateContext): Record<string, unknown> {
  const low = ctx.low;
  if (!Array.isArray(low.arg_bind) || low.arg_bind.length === 0) return {};
  const original = findOriginal(ctx.lowstate, low);
  if (!original) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(original)) {
    if (k.startsWith('__') || k === 'arg_bind') continue;
    if (findArgBindRefs(k, v).uses.length > 0) out[k] = low[k];
  }
  return out;
}

/**
 * The references of this step a test run could not resolve (the steps they read have not run
 * for real): their text, as written. A minion must never be handed one as if it were a value.
 */
export function unresolvedReferences(ctx: StateContext): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(boundArguments(ctx))) for (const u of findArgBindRefs(k, v).uses) out.push(u.ref.text);
  return [...new Set(out)];
}

/** The chunk as compiled (references unresolved): same ID, state and function, and the same tag where the name was not bound. */
function findOriginal(lowstate: LowChunk[], low: LowChunk): LowChunk | undefined {
  const same = lowstate.filter((c) => c.__id__ === low.__id__ && c.state === low.state && c.fun === low.fun);
  if (same.length <= 1) return same[0];
  return same.find((c) => chunkTag(c) === chunkTag(low)) ?? same[0];
}
