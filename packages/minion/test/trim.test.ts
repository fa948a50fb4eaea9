import t from 'tap';
import { batchByBytes, jsonBytes, TRIMMED_KEY, trimStateItem, trimToFit } from '../src/trim.js';

const LIMIT = 64 * 1024;

t.test('a state result with a huge output keeps its verdict and the start of the output', async (t) => {
  const ret = {
    name: 'make',
    result: true,
    comment: 'Command "make" run',
    changes: { pid: 7, retcode: 0, stdout: 'a'.repeat(500_000), stderr: 'e'.repeat(200_000) },
    __run_num__: 3,
  };
  const item = trimStateItem({ run_num: 3, tag: 'cmd_|-make_|-make_|-run', ret }, LIMIT);
  t.ok(jsonBytes(item) <= LIMIT, `fits: ${jsonBytes(item)} bytes`);
  const got = item.ret as typeof ret;
  t.equal(got.result, true);
  t.equal(got.comment, 'Command "make" run');
  t.equal(got.changes.retcode, 0);
  t.match(got.changes.stdout, /^a+\n\.\.\. \[\d+ bytes trimmed by the minion/);
  t.equal(ret.changes.stdout.length, 500_000, 'the original is not changed');
});

t.test('a value that fits is returned as is', async (t) => {
  const v = { a: 'b' };
  t.equal(trimToFit(v, 100).value, v);
  t.equal(trimToFit(v, 100).dropped, 0);
});

t.test('a running dict of many small states becomes a note', async (t) => {
  const running: Record<string, unknown> = {};
  for (let i = 0; i < 5000; i++) running[`test_|-s${i}_|-s${i}_|-nop`] = { result: true, comment: 'Success!', changes: {}, __run_num__: i };
  const { value, dropped } = trimToFit(running, LIMIT);
  t.ok(dropped > 0);
  t.match((value as Record<string, string>)[TRIMMED_KEY], /bytes trimmed.*stored one by one/);
});

t.test('a change set of many small entries is replaced by a note; result and comment stay', async (t) => {
  const changes: Record<string, string> = {};
  for (let i = 0; i < 20_000; i++) changes[`/etc/f${i}`] = 'new';
  const { value } = trimToFit({ result: null, comment: 'would change', changes }, LIMIT);
  const v = value as { result: null; comment: string; changes: Record<string, string> };
  t.equal(v.result, null);
  t.equal(v.comment, 'would change');
  t.match(v.changes[TRIMMED_KEY], /bytes trimmed/);
});

t.test('a plain string return is cut with a marker', async (t) => {
  const { value } = trimToFit('é'.repeat(300_000), LIMIT);
  t.ok(jsonBytes(value) <= LIMIT);
  t.match(value, /^é+\n\.\.\. \[\d+ bytes trimmed/);
});

t.test('batches hold at most maxBytes of items, each item at least once', async (t) => {
  const items = Array.from({ length: 100 }, (_, i) => ({ run_num: i, s: 'x'.repeat(1000) }));
  const batches = batchByBytes(items, 10_000);
  t.same(batches.flat(), items);
  for (const b of batches) t.ok(jsonBytes(b) <= 10_000);
  t.equal(batchByBytes([{ big: 'y'.repeat(20_000) }], 10_000).length, 1);
});

t.test('an output held twice (changes and new_state) keeps its start in both', async (t) => {
  const out = 'a'.repeat(2_000_000);
  const running = { 'cmd_|-x_|-x_|-run': { result: true, comment: 'ran', changes: { stdout: out }, new_state: { stdout: out } } };
  const { value } = trimToFit(running, LIMIT);
  const st = (value as typeof running)['cmd_|-x_|-x_|-run'];
  t.ok(jsonBytes(value) <= LIMIT);
  t.match(st.changes.stdout, /^a{1000,}\n\.\.\. \[\d+ bytes trimmed/);
  t.match(st.new_state.stdout, /^a{1000,}\n\.\.\. \[\d+ bytes trimmed/);
  t.equal(st.comment, 'ran');
});
