import t from 'tap';
import type { LowChunk } from '@brine/core';
import { runLowState } from '../src/index.js';
import { makeRegistry, noFiles, shellRunner, testModule } from './helpers/test-registry.js';

/**
 * Global arguments Salt acts on and Brine does not are refused, never accepted and ignored; an
 * argument Salt does not know either (onlyif_any) is an unknown keyword like any other.
 */
const registry = makeRegistry(testModule);
const chunk = (id: string, extra: Record<string, unknown>): LowChunk =>
  ({ state: 'test', fun: 'succeed_without_changes', __id__: id, name: id, __sls__: 's', __env__: 'base', order: 1, ...extra }) as LowChunk;

for (const [arg, value, why] of [
  ['reload_pillar', true, /reload_pillar is not supported/],
  ['reload_grains', true, /reload_grains is not supported/],
  ['fire_event', 'custom/tag', /fire_event is not supported/],
  ['aggregate', true, /aggregate is not supported/],
  ['runas_password', 'secret', /runas_password is not supported/],
] as const) {
  t.test(`${arg} fails the state with the reason`, async (t) => {
    const out = await runLowState([chunk('a', { [arg]: value })], { registry, cmd: shellRunner(), files: noFiles });
    const r = out.running['test_|-a_|-a_|-succeed_without_changes']!;
    t.equal(r.result, false);
    t.match(r.comment, why);
    t.equal(out.retcode, 2);
  });
}

t.test('a false value is no use of the argument; reload_modules needs nothing (nothing is ever stale)', async (t) => {
  const out = await runLowState([chunk('a', { reload_pillar: false }), chunk('b', { reload_modules: true })], { registry, cmd: shellRunner(), files: noFiles });
  t.equal(out.retcode, 0);
});

t.test('onlyif_any is not a state-system argument in Salt 3007: an unknown keyword, ignored as Salt ignores it', async (t) => {
  const out = await runLowState([chunk('a', { onlyif_any: [false] })], { registry, cmd: shellRunner(), files: noFiles });
  const r = out.running['test_|-a_|-a_|-succeed_without_changes']!;
  t.equal(r.result, true, 'Salt 3007 runs it: "Success!"');
});
