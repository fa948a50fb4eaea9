import { ChunkIndex, parseRequisiteRef, type LowChunk } from '@brine/core';

/**
 * `listen_in` stays on the declaring chunk in Salt's low state (Salt reads it only when the run
 * ends, in call_listen). The runtime judges listeners from the listening chunk's `listen`, so
 * each `listen_in` reference becomes a `listen` entry of the chunks it names, on copies: a chunk
 * S with `listen_in: [{svc: T}]` makes T listen to S. References that name nothing are dropped,
 * as the compiler used to drop them.
 */
export function foldListenIn(chunks: LowChunk[]): LowChunk[] {
  if (!chunks.some((c) => Array.isArray(c.listen_in))) return chunks;
  const index = new ChunkIndex(chunks);
  const extra = new Map<LowChunk, Array<Record<string, string>>>();
  for (const c of chunks) {
    if (!Array.isArray(c.listen_in)) continue;
    for (const ref of c.listen_in) {
      const target = parseRequisiteRef(ref);
      if (!target) continue;
      for (const t of index.resolve(target)) {
        const list = extra.get(t) ?? [];
        list.push({ [c.state]: c.__id__ });
        extra.set(t, list);
      }
    }
  }
  return chunks.map((c) => {
    const add = extra.get(c);
    if (!add) return c;
    const own = Array.isArray(c.listen) ? c.listen : [];
    return { ...c, listen: [...own, ...add] };
  });
}
