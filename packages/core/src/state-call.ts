import { forgetAtSnapshotRestore } from './host/snapshot-restore.js';
import type { LowChunk } from './types.js';
import type { Availability, StateModule, StateReturn } from './state-module.js';

/**
 * What every caller of a state function shares: the module's availability, asked once per
 * cache, and the answer brought to the four keys whatever the function returned.
 */

export interface AvailabilityCache {
  get(module: StateModule): Promise<Availability> | undefined;
  set(module: StateModule, p: Promise<Availability>): unknown;
}

let processWide = new WeakMap<StateModule, Promise<Availability>>();
// what the startup snapshot's warm-up found available is the build host's
forgetAtSnapshotRestore(() => (processWide = new WeakMap()));

/** A module's availability; a throwing `available()` is an unavailable module with its message. */
export function moduleAvailability(module: StateModule, cache: AvailabilityCache = processWide): Promise<Availability> {
  let p = cache.get(module);
  if (!p) {
    p = Promise.resolve()
      .then(() => module.available())
      .catch((e: unknown) => ({ available: false, reason: e instanceof Error ? e.message : String(e) }));
    cache.set(module, p);
  }
  return p;
}

/** A failed state with the reason as its comment. */
export function failedReturn(chunk: Pick<LowChunk, 'name'>, comment: string): StateReturn {
  return { name: chunk.name, result: false, changes: {}, comment };
}

/** A function's answer with name, result (true, null or false), changes and a string comment. */
export function normaliseReturn(chunk: Pick<LowChunk, 'name'>, ret: unknown, fullName: string): StateReturn {
  if (!ret || typeof ret !== 'object' || Array.isArray(ret)) return failedReturn(chunk, `State ${fullName} returned no result`);
  const r = ret as StateReturn;
  return {
    ...r,
    name: typeof r.name === 'string' ? r.name : chunk.name,
    result: r.result === true || r.result === null ? r.result : false,
    changes: r.changes && typeof r.changes === 'object' ? r.changes : {},
    comment: Array.isArray(r.comment) ? (r.comment as unknown[]).join('\n') : String(r.comment ?? ''),
  };
}
