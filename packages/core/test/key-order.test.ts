import t from 'tap';
import { cloneJson, deleteKey, isIndexKey, keysOf, objectFromEntries, rememberKeyOrder, setKey } from '../src/index.js';

t.test('index keys are the ones JavaScript moves to the front', async (t) => {
  for (const k of ['0', '7', '139', '4294967294']) t.ok(isIndexKey(k), k);
  for (const k of ['', '01', '-1', '1.5', 'a1', '4294967295', '12345678901']) t.notOk(isIndexKey(k), k);
});

t.test('setKey keeps insertion order where JavaScript would reorder', async (t) => {
  const d: Record<string, unknown> = {};
  for (const k of ['http', '139', 'smtp', '140', '22']) setKey(d, k, k);
  t.same(keysOf(d), ['http', '139', 'smtp', '140', '22']);
  t.same(Object.keys(d), ['22', '139', '140', 'http', 'smtp'], 'the object itself stays plain');
  d.late = 1; // a plain assignment still shows up, after the tracked keys
  setKey(d, '7', 7);
  t.same(keysOf(d), ['http', '139', 'smtp', '140', '22', 'late', '7']);
  deleteKey(d, '139');
  delete d.smtp;
  t.same(keysOf(d), ['http', '140', '22', 'late', '7']);
});

t.test('ascending index keys alone need no table', async (t) => {
  const d: Record<string, unknown> = {};
  for (const k of ['1', '5', '9']) setKey(d, k, k);
  t.same(keysOf(d), ['1', '5', '9']);
  const e: Record<string, unknown> = {};
  for (const k of ['9', '1']) setKey(e, k, k);
  t.same(keysOf(e), ['9', '1'], 'descending index keys are tracked');
});

t.test('copies and loaders carry the order', async (t) => {
  const d = objectFromEntries([
    ['b', 1],
    [
      '10',
      objectFromEntries([
        ['z', 1],
        ['2', 2],
      ]),
    ],
  ]);
  const copy = cloneJson({ top: d });
  t.same(keysOf(copy.top), ['b', '10']);
  t.same(keysOf(copy.top['10'] as object), ['z', '2']);
  const built = { '3': 1, a: 2, '1': 3 };
  rememberKeyOrder(built, ['a', '3', '1']);
  t.same(keysOf(built), ['a', '3', '1']);
});
