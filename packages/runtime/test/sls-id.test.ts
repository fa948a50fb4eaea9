import t from 'tap';
import type { LowChunk } from '@brine/core';
import { chunksForId, noIdMatch } from '../src/index.js';

const chunk = (id: string, extra: Record<string, unknown> = {}): LowChunk =>
  ({ state: 'test', fun: 'nop', name: id, __id__: id, __sls__: 's', __env__: 'base', order: 1, ...extra }) as LowChunk;

t.test("state.sls_id's chunks: the ID and what it needs first, transitively, in low order", async (t) => {
  const low = [
    chunk('a'),
    chunk('b', { require: [{ test: 'a' }] }),
    chunk('c', { onchanges: [{ test: 'b' }], listen: [{ test: 'd' }] }),
    chunk('d'),
    chunk('e', { require: [{ sls: 's' }] }),
  ];
  t.same(
    chunksForId(low, 'c').map((c) => c.__id__),
    ['a', 'b', 'c'],
    'listen targets are not run first',
  );
  t.same(
    chunksForId(low, 'a').map((c) => c.__id__),
    ['a'],
  );
  t.same(chunksForId(low, 'nope'), []);
  t.same(chunksForId(low, 'e').length, 5, 'an sls requisite names every chunk of the file');
  t.equal(noIdMatch('x', 'web,db', 'base'), "No matches for ID 'x' found in SLS 'web,db' within saltenv 'base'");
});
