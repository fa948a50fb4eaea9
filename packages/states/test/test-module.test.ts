import t from 'tap';
import { chunkTag, type RunningDict } from '@brine/core';
import { callModWatch, callState, defaultRegistry } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

const reg = defaultRegistry();
const call = (fun: string, extra: Record<string, unknown> = {}, test = false) => {
  const c = chunk('test', fun, 'x', extra);
  return callState(reg, c, ctxFor(c, { test }));
};

t.test('configurable_test_state', async (t) => {
  const a = await call('configurable_test_state', { changes: false, result: false, comment: 'nope', warnings: 'careful' });
  t.match(a, { result: false, changes: {}, comment: 'nope', warnings: ['careful'] });
  const b = await call('configurable_test_state', {}, true);
  t.match(b, { result: null, comment: 'This is a test', changes: { testing: { old: 'Unchanged' } } });
  const c = await call('configurable_test_state', { changes: false }, true);
  t.equal(c.result, true);
  const r = await call('configurable_test_state', { changes: 'Random', result: 'random' });
  t.ok(typeof r.result === 'boolean');
  const bad = await call('configurable_test_state', { changes: 'maybe' });
  t.equal(bad.result, false);
  t.match(bad.comment, /state option 'changes' with invalid arguments/);
});

t.test('fail and notification states in both modes', async (t) => {
  t.match(await call('fail_with_changes', {}, true), { result: null, comment: "If we weren't testing, this would be failed with changes" });
  t.match(await call('fail_without_changes', {}, true), { result: false, comment: "If we weren't testing, this would be a failure!" });
  t.match(await call('fail_without_changes', { comment: 'custom' }), { result: false, comment: 'custom' });
  t.match(await call('show_notification', { text: 'hi there' }), { result: true, comment: 'hi there', changes: {} });
  t.match(await call('show_notification'), { result: false, comment: "Missing required argument 'text' for state test.show_notification" });
  t.match(await call('nop', { anything: 'goes' }), { result: true, comment: 'Success!', new_state: { name: 'x', anything: 'goes' } });
});

t.test('test.mod_watch lists the watched states that changed', async (t) => {
  const changed = chunk('test', 'succeed_with_changes', 'changed');
  const same = chunk('test', 'succeed_without_changes', 'same');
  const watcher = chunk('test', 'succeed_without_changes', 'watcher', { watch: [{ test: 'changed' }, { test: 'same' }] });
  const running: RunningDict = {
    [chunkTag(changed)]: { name: 'changed', result: true, changes: { a: 1 }, comment: '', __sls__: 'main', __run_num__: 0, __id__: 'changed' },
    [chunkTag(same)]: { name: 'same', result: true, changes: {}, comment: '', __sls__: 'main', __run_num__: 1, __id__: 'same' },
  };
  const lowstate = [changed, same, watcher];
  const r = await callModWatch(reg, watcher, ctxFor(watcher, { running, lowstate }));
  t.match(r, { result: true, comment: 'Watch statement fired.', changes: { 'Requisites with changes': ['test: changed'] } });
  const viaReqs = { ...watcher, __reqs__: { watch: [changed, same] } };
  const r2 = await callModWatch(reg, viaReqs, ctxFor(viaReqs, { running, lowstate }));
  t.same(r2.changes, { 'Requisites with changes': ['test: changed'] });
  const custom = { ...watcher, comment: 'custom' };
  t.equal((await callModWatch(reg, custom, ctxFor(custom, { running, lowstate }))).comment, 'custom');
});
