/**
 * reconcile never changes its input. It copies the high data's top level at the first write only:
 * a tree that extends, requires-in and excludes nothing is handed back as it came (a copy of
 * 10,000 IDs is not free).
 */
import t from 'tap';
import type { HighData } from '@brine/core';
import { reconcile } from '../src/reconcile.js';

const decl = (extra: Record<string, unknown>[] = []) => ({ test: ['nop', ...extra], __sls__: 'a', __env__: 'base' });

t.test('nothing to reconcile: the same object back', async (t) => {
  const high = { a: decl(), b: decl([{ require: [{ test: 'a' }] }]) } as unknown as HighData;
  const out = reconcile({ high });
  t.equal(out.value, high);
  t.same(out.diagnostics, []);
});

t.test('require_in, extend and exclude: a copy, the input unchanged', async (t) => {
  const high = {
    a: decl(),
    b: decl([{ require_in: [{ test: 'a' }] }]),
    c: decl(),
    __extend__: [{ c: { test: [{ watch: [{ test: 'a' }] }], __sls__: 'a', __env__: 'base' } }],
    __exclude__: [{ id: 'b' }],
  } as unknown as HighData;
  const before = JSON.stringify(high);
  const out = reconcile({ high });
  t.not(out.value, high);
  t.equal(JSON.stringify(high), before, 'the input is as it was');
  t.same(Object.keys(out.value), ['a', 'c']);
  t.match((out.value.a as Record<string, unknown>).test, ['nop', { require: [{ test: 'b' }] }]);
  t.match((out.value.c as Record<string, unknown>).test, ['nop', { watch: [{ test: 'a' }] }]);
});
