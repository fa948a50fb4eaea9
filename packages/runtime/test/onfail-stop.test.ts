import t from 'tap';
import type { LowChunk, RunningDict } from '@brine/core';
import { runLowState } from '../src/index.js';
import { chunkMaker, makeRegistry, noFiles, shellRunner, testModule } from './helpers/test-registry.js';

const T = chunkMaker('test');
const handler = (id: string, fun: string, of: string): LowChunk => T(id, fun, { onfail: [{ test: of }], onfail_stop: false });

async function run(low: LowChunk[]): Promise<{ running: RunningDict; retcode: number }> {
  return runLowState(low, { registry: makeRegistry(testModule), cmd: shellRunner(), files: noFiles, sleep: async () => {} });
}
const resultOf = (running: RunningDict, id: string) => Object.values(running).find((r) => r.__id__ === id)?.result;

t.test('a failure whose onfail_stop: False handlers all succeeded does not fail the run', async (t) => {
  const out = await run([
    T('fails', 'fail_without_changes'),
    handler('h1', 'succeed_without_changes', 'fails'),
    handler('h2', 'succeed_with_changes', 'fails'),
  ]);
  t.equal(resultOf(out.running, 'fails'), false);
  t.equal(out.retcode, 0);
});

t.test('one of its handlers failing leaves the failure counted, even when the other succeeded', async (t) => {
  // h2 fails, and is itself handled by h3, so the run's only unhandled failure is `fails`:
  // counting any handler instead of all would end this run with retcode 0
  const out = await run([
    T('fails', 'fail_without_changes'),
    handler('h1', 'succeed_without_changes', 'fails'),
    handler('h2', 'fail_without_changes', 'fails'),
    handler('h3', 'succeed_without_changes', 'h2'),
  ]);
  t.same(
    ['fails', 'h1', 'h2', 'h3'].map((id) => resultOf(out.running, id)),
    [false, true, false, true],
  );
  t.equal(out.retcode, 2, 'fails is not handled: h2, one of its handlers, failed');
});

t.test('a handler without onfail_stop: False does not excuse the failure', async (t) => {
  const out = await run([T('fails', 'fail_without_changes'), T('h', 'succeed_without_changes', { onfail: [{ test: 'fails' }] })]);
  t.equal(resultOf(out.running, 'h'), true);
  t.equal(out.retcode, 2);
});
