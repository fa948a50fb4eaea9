// State functions that return without a promise run on the runtime's synchronous path: no
// promise per state. These pin that the path decides, records and stops exactly as the awaited
// one does, and that a long run of such states still gives the event loop turns.
import t from 'tap';
import { createHook } from 'node:async_hooks';
import type { LowChunk, RunningDict, StateContext, StateModule, StateReturn } from '@brine/core';
import { runLowState, type RunOptions } from '../src/index.js';
import { chunkMaker, makeRegistry, noFiles } from './helpers/test-registry.js';

type Impl = (args: Record<string, unknown>, ctx: StateContext) => StateReturn;

const pretend = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };
let attempts = 0;

/** One definition, two modules: `sync` returns results, `async` the same results as promises. */
const IMPLS: Record<string, Impl> = {
  ok: (a) => ({ name: String(a.name), result: true, changes: {}, comment: 'Success!', new_state: { name: a.name } }),
  changed: (a, ctx) => ({ name: String(a.name), result: ctx.test ? null : true, changes: structuredClone(pretend), comment: 'Changed' }),
  bad: (a) => ({ name: String(a.name), result: false, changes: {}, comment: 'Failure!' }),
  throws: () => {
    throw new Error('kaboom');
  },
  flaky: (a) => {
    attempts++;
    return { name: String(a.name), result: attempts >= 3, changes: {}, comment: `attempt ${attempts}` };
  },
};

function moduleOf(name: string, wrap: (impl: Impl) => StateModule['functions'][string]['run']): StateModule {
  const functions: StateModule['functions'] = {};
  for (const [fun, impl] of Object.entries(IMPLS)) functions[fun] = { args: {}, extraArgs: true, run: wrap(impl) };
  return {
    name,
    available: () => ({ available: true }),
    functions,
    async modWatch(args) {
      return { name: String(args.name), result: true, changes: { watched: String(args.sfun) }, comment: 'Watch statement fired.' };
    },
  };
}
const syncModule = moduleOf('s', (impl) => impl);
const asyncModule = moduleOf('s', (impl) => async (a, ctx) => impl(a, ctx));

const S = chunkMaker('s');

const NOW = new Date('2025-01-02T03:04:05.678Z');
async function run(module: StateModule, low: LowChunk[], o: Partial<RunOptions> = {}) {
  attempts = 0;
  const streamed: string[] = [];
  const out = await runLowState(low, {
    registry: makeRegistry(module),
    cmd: { run: async () => ({ retcode: 0, stdout: '', stderr: '', pid: 1 }) },
    files: noFiles,
    sleep: async () => {},
    now: () => NOW,
    onResult: (tag) => streamed.push(tag),
    ...o,
  });
  return { ...out, streamed };
}

/** The running dict without durations (they measure the machine), keys in their order. */
function shape(running: RunningDict) {
  return Object.entries(running).map(([tag, r]) => {
    const { duration, ...rest } = r;
    return [tag, rest, typeof duration];
  });
}

const MIXED = (): LowChunk[] => [
  S('a', 'ok'),
  S('b', 'changed', { require: [{ s: 'a' }] }),
  S('late', 'ok', { require: [{ s: 'z' }] }),
  S('c', 'bad'),
  S('d', 'ok', { require: [{ s: 'c' }] }),
  S('e', 'ok', { onfail: [{ s: 'c' }] }),
  S('f', 'ok', { onchanges: [{ s: 'a' }] }),
  S('g', 'ok', { onchanges: [{ s: 'b' }] }),
  S('w', 'ok', { watch: [{ s: 'b' }] }),
  S('pre', 'changed', { prereq: [{ s: 'b2' }] }),
  S('b2', 'changed', { prerequired: [{ s: 'pre' }] }),
  S('x', 'throws'),
  S('p', 'ok', { parallel: true }),
  S('q', 'ok', { require: [{ s: 'p' }] }),
  S('lost', 'ok', { require: [{ s: 'nothing' }] }),
  S('l', 'ok', { listen: [{ s: 'b' }] }),
  S('z', 'ok'),
];

// What the awaited path gives (main before the synchronous path): `late` waits for `z`.
const MIXED_RUN = ['a:true', 'b:true', 'z:true', 'late:true', 'c:false', 'd:false', 'e:true', 'f:true', 'g:true', 'w:true', 'pre:true', 'b2:true'];
MIXED_RUN.push('x:false', 'p:true', 'q:true', 'lost:false', 'l:true', 'listener_l:true');
const MIXED_TEST = MIXED_RUN.map((r) => (['b:true', 'pre:true', 'b2:true'].includes(r) ? r.replace('true', 'null') : r));

t.test('states returning without a promise give the same results, order and stream as awaited ones', async (t) => {
  for (const test of [false, true]) {
    const sync = await run(syncModule, MIXED(), { test });
    const awaited = await run(asyncModule, MIXED(), { test });
    t.same(shape(sync.running), shape(awaited.running), `running dict, test=${test}`);
    t.same(sync.streamed, awaited.streamed, `stream order, test=${test}`);
    t.equal(sync.retcode, awaited.retcode);
    const brief = Object.values(sync.running).map((r) => `${r.__id__ ?? r.name}:${String(r.result)}`);
    t.same(brief, test ? MIXED_TEST : MIXED_RUN, `what ran, in which order, test=${test}`);
  }
  const lost = (await run(syncModule, MIXED())).running['s_|-lost_|-lost_|-ok']!;
  t.match(lost.comment, /^The following requisites were not found:\n {19}require:\n {23}s: nothing\n$/);
});

t.test('a state function that throws without a promise fails that state only', async (t) => {
  const out = await run(syncModule, [S('x', 'throws'), S('after', 'ok', { require: [{ s: 'x' }] }), S('other', 'ok')]);
  const x = out.running['s_|-x_|-x_|-throws']!;
  t.equal(x.result, false);
  t.equal(x.comment, 'An exception occurred in this state: kaboom');
  t.type(x.duration, 'number');
  t.equal(out.running['s_|-after_|-after_|-ok']!.comment, 'One or more requisite failed: main.x');
  t.equal(out.running['s_|-other_|-other_|-ok']!.result, true);
  t.equal(out.retcode, 2);
});

t.test('failhard stops a run of synchronous states at the first failure', async (t) => {
  const low = [S('one', 'ok'), S('two', 'bad'), S('three', 'ok'), S('four', 'ok', { require: [{ s: 'one' }] })];
  const out = await run(syncModule, low, { failhard: true });
  t.equal(out.stopped, 'failhard');
  t.same(Object.keys(out.running), ['s_|-one_|-one_|-ok', 's_|-two_|-two_|-bad']);
  const own = await run(syncModule, [S('one', 'ok'), S('two', 'bad', { failhard: true }), S('three', 'ok')]);
  t.equal(own.stopped, 'failhard', "the state's own failhard too");
  t.equal(Object.keys(own.running).length, 2);
});

t.test('retry around a synchronous function: attempts and their comments', async (t) => {
  const out = await run(syncModule, [S('r', 'flaky', { retry: { attempts: 5, interval: 0 } })]);
  const r = out.running['s_|-r_|-r_|-flaky']!;
  t.equal(r.result, true);
  t.equal(
    r.comment,
    'Attempt 1: Returned a result of "False", with the following comment: "attempt 1"\n' +
      'Attempt 2: Returned a result of "False", with the following comment: "attempt 2"\nattempt 3',
  );
});

t.test('a parallel synchronous state is marked and numbered in order', async (t) => {
  const out = await run(syncModule, [S('p', 'ok', { parallel: true }), S('q', 'ok', { require: [{ s: 'p' }] })]);
  const p = out.running['s_|-p_|-p_|-ok']! as unknown as { __parallel__?: boolean; __run_num__: number };
  t.equal(p.__parallel__, true);
  t.equal(p.__run_num__, 0);
  t.equal(out.running['s_|-q_|-q_|-ok']!.__run_num__, 1);
});

t.test('a long run of synchronous states gives the event loop turns: an abort from it lands mid-run', async (t) => {
  const low = Array.from({ length: 5000 }, (_, i) => S(`n${i}`, 'ok'));
  const ac = new AbortController();
  let turnAt = -1;
  const seen: string[] = [];
  setImmediate(() => {
    turnAt = seen.length;
    ac.abort();
  });
  const out = await run(syncModule, low, { signal: ac.signal, onResult: (tag) => seen.push(tag) });
  t.ok(turnAt >= 0 && turnAt < low.length, `the loop had a turn before the run ended (after ${turnAt} states)`);
  t.equal(out.stopped, 'aborted');
  t.equal(Object.keys(out.running).length, turnAt, 'no state started after the abort');
});

t.test('a chain that runs ahead of the low state (each state requires the next) makes no promise per link', async (t) => {
  const n = 300;
  const low = Array.from({ length: n }, (_, i) => S(`c${i}`, 'ok', i + 1 < n ? { require: [{ s: `c${i + 1}` }] } : {}));
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises++;
    },
  }).enable();
  let out;
  try {
    out = await run(syncModule, low);
  } finally {
    hook.disable();
  }
  const order = Object.values(out.running).map((r) => [r.__id__, r.__run_num__]);
  t.same(order[0], [`c${n - 1}`, 0], 'the far end runs first');
  t.same(order.at(-1), ['c0', n - 1]);
  t.ok(promises < 40, `${promises} promises for ${n} states`);
});

t.test('a requisite still running in parallel is waited for before the requisites listed after it', async (t) => {
  const log: string[] = [];
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const mod: StateModule = {
    name: 'p',
    available: () => ({ available: true }),
    functions: {
      slow: {
        args: {},
        run: async (a) => {
          log.push(`start ${String(a.name)}`);
          await gate;
          log.push(`end ${String(a.name)}`);
          return { name: String(a.name), result: true, changes: {}, comment: '' };
        },
      },
      quick: {
        args: {},
        run: (a) => {
          log.push(`run ${String(a.name)}`);
          if (a.name === 'b') setImmediate(release);
          return { name: String(a.name), result: true, changes: {}, comment: '' };
        },
      },
    },
  };
  const P = chunkMaker('p');
  // a runs in parallel; x lets a turn pass; b needs a and c, c is listed after b
  const out = await run(mod, [P('a', 'slow', { parallel: true }), P('b', 'quick'), P('x', 'quick', { require: [{ p: 'a' }, { p: 'c' }] }), P('c', 'quick')]);
  t.same(log, ['start a', 'run b', 'end a', 'run c', 'run x'], 'c starts once a has ended, as the recursion orders it');
  t.same(
    Object.values(out.running).map((r) => r.__id__),
    ['b', 'a', 'c', 'x'],
  );
});
