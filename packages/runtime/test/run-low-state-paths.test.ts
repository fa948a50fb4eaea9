// Paths of runLowState that run-low-state(-edges).test.ts leave open, found by mutation testing
// (npm run mutate -- packages/runtime/src/run-low-state.ts): the keys a state's return may not
// override, onfail_stop with handlers that did not run, the context a function sees, the iterative
// walk of deep requisite chains (lost requisites, listen, prereq, loops, abort), the requisites
// of a prereq's prediction, listeners, and mod_watch's own number and timing.
import t from 'tap';
import type { LowChunk, RunningDict, StateModule, StateResult, StateReturn } from '@brine/core';
import { runLowState, type RunOptions } from '../src/index.js';
import { chunkMaker, makeRegistry, noFiles, shellRunner, svcModule, testModule } from './helpers/test-registry.js';

const T = chunkMaker('test', 'succeed_without_changes');
const C = (state: string, fun: string, id: string, extra: Record<string, unknown> = {}): LowChunk => ({ ...T(id, fun, extra), state });

/** What the functions of `odd` saw of their context, and what they return. */
const seen: Array<Record<string, unknown>> = [];
const calls: string[] = [];
const odd: StateModule = {
  name: 'odd',
  available: () => ({ available: true }),
  functions: {
    // a return that names every key Salt's result sets itself
    keys: {
      args: {},
      run: async () =>
        ({
          name: 42,
          changes: undefined,
          result: true,
          comment: 'odd keys',
          __sls__: 'other.sls',
          __run_num__: 99,
          __id__: 'other',
          start_time: 'then',
          duration: 'long',
          extra: 'kept',
        }) as unknown as StateReturn,
    },
    renamed: { args: {}, run: async () => ({ name: 'the real name', result: true, changes: {}, comment: '' }) },
    context: {
      args: {},
      run: async (_a, ctx) => {
        seen.push({ templateContext: 'templateContext' in ctx, exec: 'exec' in ctx, tc: ctx.templateContext, env: ctx.low.__env__ });
        return { name: 'c', result: true, changes: {}, comment: '' };
      },
    },
    // counts its calls; changes only in test mode (a prediction)
    counted: {
      args: {},
      run: async (_a, ctx) => {
        calls.push(`${ctx.low.__id__} test=${ctx.test}`);
        return { name: 'n', result: ctx.test ? null : true, changes: ctx.test ? { would: true } : {}, comment: '' };
      },
    },
    // a parallel state that takes a while
    slow: {
      args: {},
      run: async (_a, ctx) => {
        calls.push(`${ctx.low.__id__} slow`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { name: 'n', result: true, changes: {}, comment: '' };
      },
    },
    // nothing changed, and the watch must not fire
    skip: { args: {}, run: async () => ({ name: 's', result: true, changes: {}, comment: '', skip_watch: true }) },
  },
  async modWatch(_a, ctx) {
    const reqs = (ctx.low.__reqs__ ?? {}) as Record<string, LowChunk[]>;
    const ids = Object.fromEntries(Object.entries(reqs).map(([kind, chunks]) => [kind, chunks.map((c) => c.__id__)]));
    return { name: 'w', result: true, changes: { watched: ids }, comment: 'mod_watch ran' };
  },
};

const NOW = new Date('2025-01-02T03:04:05.678Z');
async function run(low: LowChunk[], o: Partial<RunOptions> = {}, log: string[] = []) {
  return runLowState(low, {
    registry: makeRegistry(testModule, odd, svcModule(log)),
    cmd: shellRunner(),
    files: noFiles,
    sleep: async () => {},
    now: () => NOW,
    ...o,
  });
}
const byId = (running: RunningDict, id: string): StateResult => Object.values(running).find((r) => r.__id__ === id)!;
const order_ = (running: RunningDict) =>
  Object.values(running)
    .sort((a, b) => a.__run_num__ - b.__run_num__)
    .map((r) => r.__id__);
const num = (running: RunningDict, id: string) => byId(running, id).__run_num__;

t.test("a return cannot override the keys the runtime sets; other keys are kept; a name that is not text is the chunk's", async (t) => {
  const out = await run([C('odd', 'keys', 'k'), C('odd', 'renamed', 'r')]);
  const k = out.running['odd_|-k_|-k_|-keys']!;
  t.ok(k, 'the tag is the chunk’s');
  t.equal(k.name, 'k');
  t.same(k.changes, {}, 'changes left out are empty');
  t.equal(k.__sls__, 'main');
  t.equal(k.__id__, 'k');
  t.equal(k.__run_num__, 0);
  t.equal(k.start_time, '03:04:05.678000', 'the runtime’s clock');
  t.type(k.duration, 'number');
  t.equal((k as unknown as { extra: string }).extra, 'kept');
  t.equal(byId(out.running, 'r').name, 'the real name', 'a name the function returns is kept');
});

t.test('the context: templateContext and exec only when given', async (t) => {
  seen.length = 0;
  const exec = { call: async () => ({ ok: true, value: 1 }) } as unknown as NonNullable<RunOptions['exec']>;
  await run([C('odd', 'context', 'with')], { templateContext: { grains: {} }, exec });
  // a chunk without __env__ is in base
  await run([{ state: 'odd', fun: 'context', __id__: 'without', name: 'without' } as LowChunk]);
  t.same(seen, [
    { templateContext: true, exec: true, tc: { grains: {} }, env: 'base' },
    { templateContext: false, exec: false, tc: undefined, env: 'base' },
  ]);
});

t.test('onfail_stop False: a handler that names several states, and one that never ran', async (t) => {
  // one of its two onfail states failed and it handled that: the run succeeds
  const two = await run([
    T('bad', 'fail_without_changes'),
    T('good'),
    T('h', 'succeed_without_changes', { onfail: [{ test: 'bad' }, { test: 'good' }], onfail_stop: false }),
  ]);
  t.equal(byId(two.running, 'h').result, true);
  t.equal(two.retcode, 0, 'handled');
  // failhard stopped the run before the handler: nothing handled the failure
  const stopped = await run([
    T('bad', 'fail_without_changes', { failhard: true }),
    T('h', 'succeed_without_changes', { onfail: [{ test: 'bad' }], onfail_stop: false }),
  ]);
  t.same(order_(stopped.running), ['bad']);
  t.equal(stopped.retcode, 2);
  // a failure that is no chunk (a Listen_Error) is not handled by any handler
  const listen = await run([
    T('a', 'succeed_without_changes', { listen: [{ test: 'nowhere' }] }),
    T('bad', 'fail_without_changes'),
    T('h', 'succeed_without_changes', { onfail: [{ test: 'bad' }], onfail_stop: false }),
  ]);
  t.ok(Object.keys(listen.running).some((k) => k.startsWith('Listen_Error')));
  t.equal(listen.retcode, 2, 'the Listen_Error fails the run');
});

t.test('onfail not triggered: a success that did not run', async (t) => {
  const out = await run([T('ok'), T('h', 'succeed_with_changes', { onfail: [{ test: 'ok' }] })]);
  const h = byId(out.running, 'h');
  t.equal(h.comment, 'State was not run because onfail req did not change');
  t.equal((h as unknown as { __state_ran__: boolean }).__state_ran__, false);
});

/** A chain c0 -> c1 -> ... (each requires the next) of `n`, the chunk at `at` given `extra` too. */
function chain(n: number, extras: Record<number, Record<string, unknown>> = {}): LowChunk[] {
  const low: LowChunk[] = [];
  for (let i = 0; i < n; i++) {
    const req = i + 1 < n ? [{ test: `c${i + 1}` }] : [];
    const extra = extras[i] ?? {};
    low.push(T(`c${i}`, (extra.fun as string) ?? 'succeed_without_changes', { ...extra, require: [...req, ...((extra.require as unknown[]) ?? [])] }));
  }
  return low;
}

t.test('deep chains: a lost requisite fails its state before the states it would need run', async (t) => {
  // c120 names a state that does not exist: it fails at once; c121.. run later, on their own turn
  const out = await run([...chain(200, { 120: { require: [{ test: 'missing' }] }, 100: { listen: [{ test: 'L' }] } }), T('L', 'succeed_with_changes')]);
  t.match(byId(out.running, 'c120').comment, /not found|does not exist/i);
  t.ok(num(out.running, 'c120') < num(out.running, 'c121'), 'c121 runs after c120 failed');
  t.ok(num(out.running, 'c0') < num(out.running, 'c121'), 'after the whole failed chain above it');
  t.equal(byId(out.running, 'c0').result, false);
  t.ok(num(out.running, 'c0') < num(out.running, 'L'), 'a listened state is no requisite: it runs in its own turn');
});

t.test('deep chains: a prereq deep down is left to the recursion, and predicted first', async (t) => {
  const out = await run([...chain(200, { 150: { prereq: [{ test: 'p' }] } }), T('p', 'succeed_with_changes')]);
  t.equal(out.retcode, 0);
  t.ok(num(out.running, 'c150') < num(out.running, 'p'), 'the prereq runs before its target');
  t.equal(Object.keys(out.running).length, 201);
  // the state the walk starts from has the prereq itself
  const root = await run([...chain(100, { 65: { prereq: [{ test: 'p' }] } }), T('p', 'succeed_with_changes')]);
  t.equal(root.retcode, 0);
  t.ok(num(root.running, 'c65') < num(root.running, 'p'));
});

t.test('deep chains: a loop far down is a recursive requisite, not a hang', async (t) => {
  const out = await run(chain(150, { 149: { require: [{ test: 'c140' }] } }));
  t.ok(
    Object.values(out.running).some((r) => r.comment === 'Recursive requisite found'),
    'the loop is found',
  );
  t.equal(Object.keys(out.running).length, 150, 'every state has a result');
});

t.test('deep chains: an abort stops the walk', async (t) => {
  const ac = new AbortController();
  let results = 0;
  const out = await run(chain(300), {
    signal: ac.signal,
    onResult: () => {
      if (++results === 10) ac.abort();
    },
  });
  t.equal(out.stopped, 'aborted');
  t.equal(Object.keys(out.running).length, 10, 'nothing runs after the abort');
});

t.test("a prediction's requisites that wait on the state being evaluated are predicted, not called a loop", async (t) => {
  // a's prereq p requires q, which requires a: p and q cannot run for real before a decides
  const out = await run([
    T('a', 'succeed_with_changes', { prereq: [{ test: 'p' }] }),
    T('p', 'succeed_with_changes', { prerequired: [{ test: 'a' }], require: [{ test: 'q' }] }),
    T('q', 'succeed_without_changes', { require: [{ test: 'a' }] }),
  ]);
  t.same(order_(out.running), ['a', 'q', 'p']);
  for (const id of ['a', 'p', 'q']) t.equal(byId(out.running, id).result, true, id);
  t.notOk(
    Object.values(out.running).some((r) => r.comment === 'Recursive requisite found'),
    'no loop',
  );
  // the prediction's requisite is itself being predicted: p requires a, a's prereq is p
  const direct = await run([
    T('a', 'succeed_with_changes', { prereq: [{ test: 'p' }] }),
    T('p', 'succeed_with_changes', { prerequired: [{ test: 'a' }], require: [{ test: 'a' }] }),
  ]);
  // the prediction of q fails, so p's prediction fails, and a with it
  const failing = await run([
    T('a', 'succeed_with_changes', { prereq: [{ test: 'p' }] }),
    T('p', 'succeed_with_changes', { prerequired: [{ test: 'a' }], require: [{ test: 'q' }] }),
    T('q', 'fail_without_changes', { require: [{ test: 'a' }] }),
  ]);
  t.same(
    ['a', 'p', 'q'].map((id) => [id, byId(failing.running, id).result, byId(failing.running, id).comment]),
    [
      ['a', false, 'One or more requisite failed: main.p'],
      ['p', false, 'One or more requisite failed: main.q, main.a'],
      ['q', false, 'One or more requisite failed: main.a'],
    ],
  );
  // prereqs that name each other
  const loop = await run([T('a', 'succeed_with_changes', { prereq: [{ test: 'b' }] }), T('b', 'succeed_with_changes', { prereq: [{ test: 'a' }] })]);
  t.same(
    Object.values(loop.running).map((r) => [r.__id__, r.result, r.comment]),
    [
      ['a', false, 'One or more requisite failed: main.b'],
      ['b', false, 'One or more requisite failed: main.a'],
    ],
    'a prereq loop ends (its prediction finds the loop), both fail',
  );
  t.same(order_(direct.running), ['a', 'p']);
  t.equal(byId(direct.running, 'a').result, true);
  t.equal(byId(direct.running, 'p').result, true);
});

t.test('listen: only listened states that changed fire it; a listener with a lost requisite does not', async (t) => {
  const out = await run([
    C('svc', 'running', 'one', { listen: [{ test: 'changed' }, { test: 'same' }] }),
    C('svc', 'running', 'none', { listen: [{ test: 'same' }], require: [{ test: 'same' }] }),
    C('svc', 'running', 'lost', { listen: [{ test: 'changed' }], require: [{ test: 'missing' }] }),
    C('svc', 'running', 'req', { listen: [{ test: 'same' }], require: [{ test: 'changed' }] }),
    T('changed', 'succeed_with_changes'),
    T('same'),
  ]);
  t.ok(out.running['svc_|-listener_one_|-one_|-mod_watch'], 'one changed of two listened: it fires');
  t.notOk(out.running['svc_|-listener_none_|-none_|-mod_watch'], 'nothing listened changed (a plain requisite does not count)');
  t.notOk(out.running['svc_|-listener_lost_|-lost_|-mod_watch'], 'a listener whose requisite is lost does not fire');
  t.notOk(out.running['svc_|-listener_req_|-req_|-mod_watch'], 'a required state that changed does not fire a listen');
  // one listen naming two states (both named `pair`): one of them changed
  const pair = await run([
    C('svc', 'running', 'l', { listen: [{ test: 'pair' }] }),
    T('p1', 'succeed_with_changes', { name: 'pair' }),
    T('p2', 'succeed_without_changes', { name: 'pair' }),
  ]);
  t.ok(pair.running['svc_|-listener_l_|-l_|-mod_watch'], 'one of the states a listen names changed: it fires');
});

t.test('watch: mod_watch has its own number and timing; skip_watch and a missing module', async (t) => {
  const out = await run([T('conf', 'succeed_with_changes'), C('odd', 'renamed', 'w', { watch: [{ test: 'conf' }] }), T('after')]);
  const w = byId(out.running, 'w');
  t.same(w.changes, { watched: { watch: ['conf'] } }, 'mod_watch gets the watched states');
  t.equal(w.__run_num__, 2, 'the state used 1');
  t.equal(num(out.running, 'after'), 3);
  t.equal(w.start_time, '03:04:05.678000');
  t.type(w.duration, 'number');
  const skip = await run([T('conf', 'succeed_with_changes'), C('odd', 'skip', 's', { watch: [{ test: 'conf' }] })]);
  t.same(byId(skip.running, 's').changes, {}, 'skip_watch: no mod_watch');
  const missing = await run([T('conf', 'succeed_with_changes'), C('nosuch', 'thing', 'n', { watch: [{ test: 'conf' }] })]);
  t.equal(byId(missing.running, 'n').result, false, 'a state of a module that is not there fails, watched or not');
});

t.test('an argument binding that fails is a timed failure', async (t) => {
  const out = await run([T('c', 'echo_args', { x: '${test:b:nope}', arg_bind: [{ test: 'b' }] }), T('b')]);
  const c = byId(out.running, 'c');
  t.equal(c.result, false);
  t.match(c.comment, /^Cannot resolve argument binding/);
  t.equal(c.start_time, '03:04:05.678000');
  t.type(c.duration, 'number');
});

t.test("a state's own shell wins over the default; onlyif fun: calls the host's execution functions", async (t) => {
  const calls: Array<string | undefined> = [];
  const cmd = {
    run: async (_c: string | string[], o: { shell?: string } = {}) => {
      calls.push(o.shell);
      return { retcode: 0, stdout: '', stderr: '', pid: 1 };
    },
  };
  await run([T('own', 'nop', { onlyif: 'true', shell: '/bin/own' }), T('dflt', 'nop', { onlyif: 'true' })], { cmd, shell: '/bin/default' });
  t.same(calls, ['/bin/own', '/bin/default']);
  const asked: string[] = [];
  const exec = {
    call: async (fun: string) => (asked.push(fun), { return: false, retcode: 0 }),
    spec: () => undefined,
  };
  const out = await run([T('f', 'succeed_with_changes', { onlyif: [{ fun: 'file.file_exists', args: ['/nope'] }] })], { exec });
  t.same(asked, ['file.file_exists']);
  t.same(byId(out.running, 'f').changes, {}, 'the condition did not hold: skipped');
});

t.test('a parallel state that changed fires its listener; an aborted run calls no listener', async (t) => {
  const out = await run([C('svc', 'running', 'l', { listen: [{ test: 'p' }] }), T('p', 'succeed_with_changes', { parallel: true })]);
  t.ok(out.running['svc_|-listener_l_|-l_|-mod_watch'], 'the listener waited for the parallel state');
  const ac = new AbortController();
  const aborted = await run([C('svc', 'running', 'l', { listen: [{ test: 'p' }] }), T('p', 'succeed_with_changes'), T('q')], {
    signal: ac.signal,
    onResult: (tag) => {
      if (tag.includes('_|-p_|-')) ac.abort();
    },
  });
  t.equal(aborted.stopped, 'aborted');
  t.same(order_(aborted.running), ['l', 'p'], 'no listener after the abort');
});

t.test("a listener's mod_watch gets the listened states and none of the chunk's requisites", async (t) => {
  const out = await run([C('odd', 'renamed', 'l', { listen: [{ test: 'pp' }], require: [{ test: 'q' }] }), T('pp', 'succeed_with_changes'), T('q')]);
  t.same(out.running['odd_|-listener_l_|-l_|-mod_watch']?.changes, { watched: { listen: ['pp'] } });
});

t.test('a prereq target is predicted once, however many states have it as their prereq', async (t) => {
  calls.length = 0;
  const out = await run([
    T('a', 'succeed_with_changes', { prereq: [{ odd: 'p' }] }),
    T('b', 'succeed_with_changes', { prereq: [{ odd: 'p' }] }),
    C('odd', 'counted', 'p', { prerequired: [{ test: 'a' }, { test: 'b' }] }),
  ]);
  t.same(calls, ['p test=true', 'p test=false']);
  t.same(order_(out.running), ['a', 'b', 'p']);
});

t.test("a prediction whose requisite really failed is that state's result at once; a failed prediction keeps its timing", async (t) => {
  const out = await run([
    T('a', 'succeed_with_changes', { prereq: [{ test: 'p' }] }),
    T('p', 'succeed_with_changes', { prerequired: [{ test: 'a' }], require: [{ test: 'f' }] }),
    T('x'),
    T('f', 'fail_without_changes'),
  ]);
  t.same(
    order_(out.running).map((id) => [id, byId(out.running, id).comment]),
    [
      ['f', 'Failure!'],
      ['p', 'One or more requisite failed: main.f'],
      ['a', 'One or more requisite failed: main.p'],
      ['x', 'Success!'],
    ],
  );
  const pre = await run([
    T('blocked', 'succeed_with_changes', { prereq: [{ test: 'fails' }] }),
    T('fails', 'fail_without_changes', { prerequired: [{ test: 'blocked' }] }),
  ]);
  const fails = byId(pre.running, 'fails');
  t.equal(fails.comment, "If we weren't testing, this would be a failure!");
  t.equal(fails.start_time, '03:04:05.678000', 'the timing of its dry run');
  t.type(fails.duration, 'number');
});

t.test('a parallel state that an earlier state required runs once', async (t) => {
  calls.length = 0;
  const out = await run([T('x', 'succeed_without_changes', { require: [{ odd: 'p' }] }), C('odd', 'slow', 'p', { parallel: true }), T('y')]);
  t.same(calls, ['p slow']);
  t.equal(byId(out.running, 'p').result, true);
  t.equal(Object.keys(out.running).length, 3);
});

t.test('listeners and Listen_Errors are numbered after every state, each its own number, timed; an abort stops them', async (t) => {
  const low = [
    C('svc', 'running', 'l1', { listen: [{ test: 'ch' }, { test: 'ghost1' }] }),
    C('svc', 'running', 'l2', { listen: [{ test: 'ch' }, { test: 'ghost2' }] }),
    T('ch', 'succeed_with_changes'),
  ];
  const out = await run(low);
  t.same(order_(out.running), ['l1', 'l2', 'ch', 'listener_l1', 'listener_l2', undefined, undefined]);
  t.same(
    Object.entries(out.running)
      .filter(([k]) => k.startsWith('Listen_Error'))
      .map(([k, r]) => [k, r.__run_num__]),
    [
      ['Listen_Error_|-listen_ghost1_|-listen_test_|-Listen_Error', 5],
      ['Listen_Error_|-listen_ghost2_|-listen_test_|-Listen_Error', 6],
    ],
  );
  const l1 = out.running['svc_|-listener_l1_|-l1_|-mod_watch']!;
  t.equal(l1.start_time, '03:04:05.678000');
  t.type(l1.duration, 'number');
  t.notOk('stopped' in out, 'a run that was not stopped says nothing of it');
  const ac = new AbortController();
  const aborted = await run(low, {
    signal: ac.signal,
    onResult: (tag) => {
      if (tag.includes('listener_l1')) ac.abort();
    },
  });
  t.same(order_(aborted.running), ['l1', 'l2', 'ch', 'listener_l1'], 'no listener after the abort, and no Listen_Error');
});

t.test('a low state with an item that is not a chunk is refused with a coded error', async (t) => {
  await t.rejects(run([T('ok'), { state: 'test', __id__: 'nofun' } as unknown as LowChunk]), { code: 'BRINE_ERR_RUNTIME_BAD_LOWSTATE', message: /item 1/ });
});
