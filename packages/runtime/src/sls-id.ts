import { ChunkIndex, chunkRequisites, RUNTIME_REQUISITES, type LowChunk } from '@brine/core';

const KINDS = RUNTIME_REQUISITES.filter((k) => k !== 'listen');

/**
 * Salt's state.sls_id: the chunks of ID `id`, and what they need to run first (their
 * requisites' targets, transitively; Salt's call_chunk runs an unmet requisite's target), in
 * low state order. Listen is left out: Salt evaluates it at the end of a whole run only.
 */
export function chunksForId(low: readonly LowChunk[], id: string): LowChunk[] {
  const index = new ChunkIndex(low);
  const keep = new Set<LowChunk>();
  const toVisit = low.filter((c) => c.__id__ === id);
  while (toVisit.length > 0) {
    const c = toVisit.pop()!;
    if (keep.has(c)) continue;
    keep.add(c);
    for (const r of chunkRequisites(c, KINDS)) if (r.target) toVisit.push(...index.resolve(r.target));
  }
  return low.filter((c) => keep.has(c));
}

/** Salt's "No matches for ID ..." of state.sls_id. */
export function noIdMatch(id: string, mods: unknown, saltenv: string): string {
  const m = Array.isArray(mods) ? mods.join(',') : String(mods);
  return `No matches for ID '${id}' found in SLS '${m}' within saltenv '${saltenv}'`;
}
