import type { Diagnostic, LowChunk } from '@brine/core';

/**
 * The order stage: `order: first` is 0, `last` is cap + 1,000,000, a negative n is
 * cap + 1,000,000 + n, missing is cap; `names` entries add a fraction; then a stable sort by
 * order and the string state + name + fun. cap starts at 1 and every integer order above
 * cap - 1 raises it to that order + 100 (observed from Salt 3007).
 */
export function orderChunks(chunks: LowChunk[]): { value: LowChunk[]; diagnostics: Diagnostic[] } {
  let cap = 1;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    const o = c.order as unknown;
    if (typeof o === 'number' && Number.isInteger(o) && o > cap - 1 && o > 0) cap = o + 100;
  }
  // Chunks are normalised in place (they are the compile stage's own, fresh objects); only a
  // names chunk is copied, to drop `name_order` without a property delete.
  const out: LowChunk[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const src = chunks[i]!;
    let c = src as Record<string, unknown>;
    if (!('order' in c)) {
      c.order = cap;
    } else if (typeof c.order !== 'number') {
      const o = c.order;
      // As Salt: any other string, a number written as a string ('10') included, is the default
      // order (verify warns about it).
      if (o === 'last') c.order = cap + 1_000_000;
      else if (o === 'first') c.order = 0;
      else c.order = cap;
    }
    if ('name_order' in c) {
      const { name_order: nameOrder, ...rest } = c;
      c = rest;
      c.order = (c.order as number) + (nameOrder as number) / 10000;
    }
    if ((c.order as number) < 0) c.order = cap + 1_000_000 + (c.order as number);
    out.push(c as LowChunk);
  }
  // sort() is stable: equal keys keep the compile's order. The string key is made for chunks
  // whose orders tie only (in most trees every chunk has an order of its own).
  let keys: Map<LowChunk, string> | undefined;
  const key = (c: LowChunk): string => {
    let k = (keys ??= new Map()).get(c);
    if (k === undefined) keys.set(c, (k = `${c.state}${c.name}${c.fun}`));
    return k;
  };
  out.sort((a, b) => {
    if (a.order !== b.order) return a.order - b.order;
    const ka = key(a);
    const kb = key(b);
    return ka === kb ? 0 : ka < kb ? -1 : 1;
  });
  return { value: out, diagnostics: [] };
}
