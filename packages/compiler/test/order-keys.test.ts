/**
 * The order stage sorts by order, then by the string state + name + fun (Salt's key). That string
 * is made only for chunks whose orders tie: a 10,000-state tree, each state with an order of its
 * own, made 10,000 strings and as many wrapper objects for nothing.
 */
import t from 'tap';
import type { LowChunk } from '@brine/core';
import { orderChunks } from '../src/order.js';

/** A chunk counting the reads of its state, name and fun. */
function chunk(id: string, order: unknown, reads: { n: number }, state = 'test'): LowChunk {
  const c: Record<string, unknown> = { __id__: id, __sls__: 's', __env__: 'base' };
  for (const [k, v] of [
    ['state', state],
    ['name', id],
    ['fun', 'nop'],
  ] as const) {
    Object.defineProperty(c, k, { enumerable: true, get: () => (reads.n++, v) });
  }
  if (order !== undefined) c.order = order;
  return c as unknown as LowChunk;
}

t.test('distinct orders: no sort key read', async (t) => {
  const reads = { n: 0 };
  const chunks = [chunk('b', 10002, reads), chunk('a', 10001, reads), chunk('c', 10000, reads)];
  const out = orderChunks(chunks).value.map((c) => c.__id__);
  t.same(out, ['c', 'a', 'b']);
  t.equal(reads.n, 0, 'state, name and fun were not read');
});

t.test('tied orders still sort by state + name + fun, then keep the compile order', async (t) => {
  const reads = { n: 0 };
  const chunks = [chunk('z', 5, reads, 'pkg'), chunk('y', 5, reads, 'file'), chunk('x', 1, reads), chunk('y', 5, reads, 'file'), chunk('w', 'last', reads)];
  const out = orderChunks(chunks).value;
  t.same(
    out.map((c) => `${c.__id__}:${c.order}`),
    ['x:1', 'y:5', 'y:5', 'z:5', 'w:1000105'],
  );
  t.equal(out[1], chunks[1], 'equal keys keep the order they were compiled in');
  t.equal(out[2], chunks[3]);
});
