// Edges of runLowState that run-low-state.test.ts leaves open: how chunks are normalised, which
// results are timed, the Listen_Error entries, what is streamed, the default shell, parallel
// marks and the low state's own check. A recording command runner stands in for the shell.
import t from 'tap';
import type { CommandRunner, LowChunk, RunningDict, StateResult } from '@brine/core';
import { runLowState, type RunOptions } from '../src/index.js';
import { chunkMaker, cmdModule, makeRegistry, noFiles, testModule } from './helpers/test-registry.js';

const T = chunkMaker('test', 'succeed_without_changes');

function recorder() {
  const calls: Array<{ command: string; shell?: string }> = [];
  const cmd: CommandRunner = {
    run: async (command, options = {}) => {
      calls.push({ command: String(command), ...(options.shell === undefined ? {} : { shell: options.shell }) });
      return { retcode: 0, stdout: 'out', stderr: '', pid: 1 };
    },
  };
  return { calls, cmd };
}

const NOW = new Date('2025-01-02T03:04:05.678Z');
async function run(low: LowChunk[], o: Partial<RunOptions> = {}) {
  return runLowState(low, {
    registry: makeRegistry(testModule, cmdModule),
    cmd: recorder().cmd,
    files: noFiles,
    sleep: async () => {},
    now: () => NOW,
    ...o,
  });
}
const byId = (running: RunningDict, id: string): StateResult => Object.values(running).find((r) => r.__id__ === id)!;

t.test('chunks are normalised: a name that is not a string, no name, no __sls__', async (t) => {
  const out = await run([
    { state: 'test', fun: 'nop', __id__: 'num', name: 5 } as unknown as LowChunk,
    { state: 'test', fun: 'nop', __id__: 'noname' } as LowChunk,
  ]);
  t.equal(byId(out.running, 'num').name, '5');
  t.equal(byId(out.running, 'noname').name, 'noname', 'the id is the name');
  t.equal(byId(out.running, 'num').__sls__, 'state.low');
  t.ok('test_|-num_|-5_|-nop' in out.running);
});

t.test('a state that ran is timed, a requisite failure is not, a skipped one is', async (t) => {
  const out = await run([
    T('bad', 'fail_without_changes'),
    T('needs', 'nop', { require: [{ test: 'bad' }] }),
    T('quiet'),
    T('on', 'nop', { onchanges: [{ test: 'quiet' }] }),
  ]);
  const bad = byId(out.running, 'bad');
  t.equal(bad.start_time, '03:04:05.678000');
  t.type(bad.duration, 'number');
  const needs = byId(out.running, 'needs');
  t.equal(needs.start_time, undefined, 'no function ran: no start_time');
  t.equal(needs.duration, undefined);
  t.same(Object.keys(needs).sort(), ['__id__', '__run_num__', '__sls__', 'changes', 'comment', 'name', 'result']);
  const on = byId(out.running, 'on');
  t.equal(on.start_time, '03:04:05.678000', 'a state its requisites skipped is timed like one that ran');
  t.equal(on.result, true);
  t.equal((on as unknown as { __state_ran__: boolean }).__state_ran__, false);
  t.equal(out.retcode, 2);
});

t.test('a listen on a module state that is not there is a Listen_Error at the end, streamed too', async (t) => {
  const streamed: string[] = [];
  const out = await run([T('a', 'nop', { listen: [{ cmd: 'away' }, { id: 'nothing' }] }), T('b')], { onResult: (tag) => streamed.push(tag) });
  const tag = 'Listen_Error_|-listen_away_|-listen_cmd_|-Listen_Error';
  t.same(out.running[tag], { name: 'listen_cmd:away', changes: {}, result: false, comment: 'Referenced state cmd: away does not exist', __run_num__: 2 });
  t.same(streamed, ['test_|-a_|-a_|-nop', 'test_|-b_|-b_|-succeed_without_changes', tag]);
  t.equal(out.retcode, 2);
});

t.test("onResult gets every real result, never a prereq's dry run", async (t) => {
  const streamed: Array<[string, StateResult]> = [];
  const out = await run([T('pre', 'nop', { prereq: [{ test: 'target' }] }), T('target', 'succeed_with_changes')], {
    onResult: (tag, r) => streamed.push([tag, r]),
  });
  t.same(
    streamed.map(([tag]) => tag),
    ['test_|-pre_|-pre_|-nop', 'test_|-target_|-target_|-succeed_with_changes'],
  );
  t.equal(streamed[0]![1], out.running['test_|-pre_|-pre_|-nop'], 'the result itself');
});

t.test("the shell: the option, else the shell grain, else the runner's own", async (t) => {
  for (const [what, o, want] of [
    ['shell option', { shell: '/bin/zsh', templateContext: { grains: { shell: '/bin/bash' } } }, '/bin/zsh'],
    ['shell grain', { templateContext: { grains: { shell: '/bin/bash' } } }, '/bin/bash'],
    ['an empty grain', { templateContext: { grains: { shell: '' } } }, undefined],
    ['no grains', { templateContext: {} }, undefined],
    ['nothing', {}, undefined],
  ] as Array<[string, Partial<RunOptions>, string | undefined]>) {
    const r = recorder();
    await run([{ state: 'cmd', fun: 'run', __id__: 'c', name: 'echo hi' } as LowChunk], { ...o, cmd: r.cmd });
    t.same(r.calls, [{ command: 'echo hi', ...(want ? { shell: want } : {}) }], what);
  }
});

t.test('parallel states are marked; a dry run of one is not', async (t) => {
  const out = await run([T('p', 'nop', { parallel: true }), T('q', 'nop')]);
  t.equal((byId(out.running, 'p') as unknown as { __parallel__?: boolean }).__parallel__, true);
  t.equal((byId(out.running, 'q') as unknown as { __parallel__?: boolean }).__parallel__, undefined);
});

t.test('a low state that is not a list of chunks is refused with a coded error', async (t) => {
  await t.rejects(run('x' as unknown as LowChunk[]), { code: 'BRINE_ERR_RUNTIME_BAD_LOWSTATE', message: /got string/ });
  for (const bad of [null, 5, { fun: 'f', __id__: 'i' }, { state: 's', __id__: 'i' }, { state: 's', fun: 'f' }]) {
    await t.rejects(run([bad as unknown as LowChunk]), { code: 'BRINE_ERR_RUNTIME_BAD_LOWSTATE', message: /item 0 is not a low chunk/ }, JSON.stringify(bad));
  }
});

t.test('failhard in test mode does not stop the run', async (t) => {
  const out = await run([T('bad', 'fail_without_changes', { failhard: true }), T('after')], { test: true });
  t.equal(out.stopped, undefined);
  t.ok(byId(out.running, 'after'));
});

t.test('onfail_stop False handles only the failure its handler names, by module and id', async (t) => {
  const handler = (onfail: unknown[]) => T('h', 'nop', { onfail, onfail_stop: false });
  t.equal((await run([T('a', 'fail_without_changes'), handler([{ test: 'a' }])])).retcode, 0, 'handled');
  t.equal((await run([T('a', 'fail_without_changes'), T('b', 'fail_without_changes'), handler([{ test: 'a' }])])).retcode, 2, 'b is not handled');
  t.equal((await run([T('a', 'fail_without_changes'), handler([{ id: 'a' }])])).retcode, 2, 'only a module: id reference counts');
  t.equal((await run([T('a', 'fail_without_changes'), T('h', 'nop', { onfail: [{ test: 'a' }] })])).retcode, 2, 'without onfail_stop False');
  t.equal(
    (await run([T('a', 'fail_without_changes'), T('h', 'fail_without_changes', { onfail: [{ test: 'a' }], onfail_stop: false })])).retcode,
    2,
    'a failed handler',
  );
});
