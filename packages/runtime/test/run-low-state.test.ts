import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LowChunk, RunningDict, StateModule, StateResult } from '@brine/core';
import { runLowState, type RunOptions } from '../src/index.js';
import { cmdModule, makeRegistry, noFiles, pkgUnavailable, shellRunner, svcModule, testModule } from './helpers/test-registry.js';

let order = 10000;
function chunk(state: string, fun: string, id: string, extra: Record<string, unknown> = {}): LowChunk {
  return { state, fun, __id__: id, name: id, __sls__: 'main', __env__: 'base', order: order++, ...extra };
}
const T = (id: string, fun = 'succeed_without_changes', extra: Record<string, unknown> = {}) => chunk('test', fun, id, extra);

async function run(low: LowChunk[], o: Partial<RunOptions> = {}, log: string[] = []) {
  return runLowState(low, {
    registry: makeRegistry(testModule, cmdModule, svcModule(log), pkgUnavailable),
    cmd: shellRunner(),
    files: noFiles,
    sleep: async () => {},
    ...o,
  });
}
const byId = (running: RunningDict, id: string): StateResult => Object.values(running).find((r) => r.__id__ === id)!;
const order_ = (running: RunningDict) =>
  Object.values(running)
    .sort((a, b) => a.__run_num__ - b.__run_num__)
    .map((r) => r.__id__);

t.test('requisites by name, by id:, by sls; a missing one fails only that state', async (t) => {
  const out = await run([
    T('needs_name', 'succeed_without_changes', { require: [{ test: 'the-name' }] }),
    T('named', 'succeed_without_changes', { name: 'the-name' }),
    T('needs_id', 'succeed_without_changes', { require: [{ id: 'named' }] }),
    T('needs_sls', 'succeed_without_changes', { require: [{ sls: 'other' }] }),
    { ...T('o1'), __sls__: 'other' },
    T('lost', 'succeed_without_changes', { require: [{ test: 'nope' }, { id: 'gone' }], watch: [{ cmd: 'x' }] }),
  ]);
  t.same(order_(out.running), ['named', 'needs_name', 'needs_id', 'o1', 'needs_sls', 'lost']);
  t.equal(
    byId(out.running, 'lost').comment,
    'The following requisites were not found:\n                   require:\n                       test: nope\n                       id: gone\n' +
      '                   watch:\n                       cmd: x\n',
  );
  t.equal(out.retcode, 2);
});

t.test('failed requisites listed in declaration order', async (t) => {
  const out = await run([
    T('z', 'fail_without_changes'),
    T('a', 'fail_without_changes'),
    T('both', 'succeed_without_changes', { require: [{ test: 'z' }, { test: 'a' }] }),
    T('any_ok', 'succeed_without_changes', { require_any: [{ test: 'z' }, { test: 'ok' }] }),
    T('ok'),
    T('any_bad', 'succeed_without_changes', { require_any: [{ test: 'a' }, { test: 'z' }] }),
  ]);
  t.equal(byId(out.running, 'both').comment, 'One or more requisite failed: main.z, main.a');
  t.equal(byId(out.running, 'any_ok').result, true);
  t.equal(byId(out.running, 'any_bad').comment, 'One or more requisite failed: main.a, main.z');
});

t.test('watch: mod_watch runs when the watched state changed and the state itself did not', async (t) => {
  const log: string[] = [];
  const low = [
    T('conf', 'succeed_with_changes'),
    chunk('svc', 'running', 'nginx', { watch: [{ test: 'conf' }] }),
    chunk('svc', 'running', 'quiet', { watch: [{ test: 'same' }] }),
    T('same'),
    T('watcher', 'succeed_without_changes', { watch: [{ test: 'conf' }] }),
  ];
  const out = await run(low, {}, log);
  t.same(log, ['running nginx', 'mod_watch nginx sfun=running test=false', 'running quiet']);
  const nginx = byId(out.running, 'nginx');
  t.same(nginx.changes, { restarted: true });
  t.equal(nginx.__run_num__, 2, 'the first call used number 1, as in Salt');
  t.same(byId(out.running, 'watcher').changes, { 'Requisites with changes': ['test: conf'] });
  t.equal(byId(out.running, 'watcher').comment, 'Watch statement fired.');
  const log2: string[] = [];
  const test = await run(low, { test: true }, log2);
  t.same(log2, ['running nginx', 'mod_watch nginx sfun=running test=true', 'running quiet'], 'watch fires in test mode too');
  t.equal(byId(test.running, 'nginx').result, null);
});

t.test('listen: mod_watch at the end as listener_<id>', async (t) => {
  const log: string[] = [];
  const out = await run([chunk('svc', 'running', 'nginx', { listen: [{ test: 'conf' }] }), T('conf', 'succeed_with_changes'), T('after')], {}, log);
  t.same(order_(out.running), ['nginx', 'conf', 'after', 'listener_nginx']);
  t.ok(out.running['svc_|-listener_nginx_|-nginx_|-mod_watch'], 'tag like Salt');
  t.same(log, ['running nginx', 'mod_watch nginx sfun=running test=false']);
});

t.test('prereq: dry run first, real run after; no change means "No changes detected"', async (t) => {
  const out = await run([
    T('down', 'succeed_with_changes', { prereq: [{ test: 'deploy' }] }),
    T('deploy', 'configurable_test_state', { changes: true, prerequired: [{ test: 'down' }] }),
    T('never', 'succeed_with_changes', { prereq: [{ test: 'same' }] }),
    T('same', 'configurable_test_state', { changes: false, prerequired: [{ test: 'never' }] }),
    T('blocked', 'succeed_with_changes', { prereq: [{ test: 'fails' }] }),
    T('fails', 'fail_without_changes', { prerequired: [{ test: 'blocked' }] }),
  ]);
  t.same(order_(out.running), ['down', 'deploy', 'never', 'same', 'blocked', 'fails']);
  t.equal(byId(out.running, 'deploy').result, true, 'the real result, not the dry run');
  t.equal(byId(out.running, 'never').comment, 'No changes detected');
  t.equal(byId(out.running, 'blocked').comment, 'One or more requisite failed: main.fails');
  // As Salt: the target whose dry run failed reports that failure, not the prereq it failed.
  t.same([byId(out.running, 'fails').result, byId(out.running, 'fails').comment], [false, "If we weren't testing, this would be a failure!"]);
  t.same(
    Object.values(out.running)
      .map((r) => r.__run_num__)
      .sort(),
    [0, 1, 2, 3, 4, 5],
    'each chunk once, its own number',
  );
});

t.test('onfail_all, onchanges with a failed target', async (t) => {
  const out = await run([
    T('f1', 'fail_without_changes'),
    T('ok'),
    T('all', 'succeed_without_changes', { onfail_all: [{ test: 'f1' }, { test: 'ok' }] }),
    T('oc', 'succeed_without_changes', { onchanges: [{ test: 'f1' }] }),
  ]);
  t.equal(byId(out.running, 'all').comment, 'State was not run because onfail req did not change');
  t.equal(byId(out.running, 'oc').comment, 'One or more requisite failed: main.f1');
});

t.test('failhard stops the run, except in test mode; abort signal too', async (t) => {
  const low = [T('one'), T('two', 'fail_without_changes', { failhard: true }), T('three')];
  const out = await run(low);
  t.same(order_(out.running), ['one', 'two']);
  t.equal(out.stopped, 'failhard');
  t.same(order_((await run(low, { test: true })).running), ['one', 'two', 'three']);
  t.same(order_((await run([T('x'), T('y', 'fail_without_changes'), T('z')], { failhard: true })).running), ['x', 'y']);
  const ac = new AbortController();
  const aborted = await run([T('a'), T('b')], { signal: ac.signal, onResult: () => ac.abort() });
  t.same(order_(aborted.running), ['a']);
  t.equal(aborted.stopped, 'aborted');
});

t.test('unless/onlyif lists and booleans, creates list, check_cmd', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-rt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'f'), '');
  const calls: string[] = [];
  const out = await run(
    [
      chunk('cmd', 'run', 'u1', { name: 'echo a', unless: ['true', 'false'] }),
      chunk('cmd', 'run', 'u2', { name: 'echo b', unless: ['true', 'true'] }),
      chunk('cmd', 'run', 'o1', { name: 'echo c', onlyif: ['true', false] }),
      chunk('cmd', 'run', 'c1', { name: 'echo d', creates: [join(dir, 'f'), join(dir, 'f')] }),
      chunk('cmd', 'run', 'k1', { name: 'echo e', check_cmd: ['false'] }),
      chunk('cmd', 'run', 'k2', { name: 'echo f', check_cmd: 'true' }),
      chunk('cmd', 'run', 'cwd', { name: 'pwd', cwd: dir, onlyif: 'test -f f' }),
    ],
    { cmd: shellRunner(calls) },
  );
  t.equal(byId(out.running, 'u1').comment, 'Command "echo a" run');
  t.equal(byId(out.running, 'u2').comment, 'unless condition is true');
  t.equal(byId(out.running, 'u2').skip_watch, true);
  t.equal(byId(out.running, 'o1').comment, 'onlyif condition is false');
  t.equal(byId(out.running, 'c1').comment, 'All files in creates exist');
  t.equal(byId(out.running, 'k1').result, false);
  t.equal(byId(out.running, 'k1').comment, 'check_cmd determined the state failed');
  t.equal(byId(out.running, 'k2').comment, 'check_cmd determined the state succeeded');
  t.equal(byId(out.running, 'cwd').changes.stdout, dir, 'conditions run in the state cwd');
});

t.test('check_cmd as Salt 3007 runs it: in test mode, after a failure or a skip too; not for a function that checks its own', async (t) => {
  const calls: string[] = [];
  // A function that takes check_cmd itself (as file.managed does): the runtime leaves it alone.
  const own: StateModule = {
    name: 'own',
    available: () => ({ available: true }),
    functions: {
      checked: {
        args: { check_cmd: { type: 'string' } },
        run: async (a) => ({ name: String(a.name), result: true, changes: { checked: String(a.check_cmd) }, comment: 'checked it myself' }),
      },
    },
  };
  const low = [
    chunk('cmd', 'run', 'k1', { name: 'echo e', check_cmd: 'false' }),
    chunk('cmd', 'run', 'k2', { name: 'echo f', check_cmd: 'true' }),
    chunk('cmd', 'run', 'k3', { name: 'false', check_cmd: 'true' }),
    chunk('cmd', 'run', 'k4', { name: 'echo g', unless: 'true', check_cmd: 'false' }),
    chunk('own', 'checked', 'k5', { check_cmd: 'false' }),
  ];
  const registry = makeRegistry(testModule, cmdModule, own);
  for (const test of [true, false]) {
    const out = await run(low, { registry, cmd: shellRunner(calls), test });
    const got = (id: string) => [byId(out.running, id).result, byId(out.running, id).comment];
    t.same(got('k1'), [false, 'check_cmd determined the state failed'], `test=${test}`);
    t.same(got('k2'), [true, 'check_cmd determined the state succeeded'], `test=${test}`);
    t.same(got('k3'), [true, 'check_cmd determined the state succeeded'], `test=${test}: a failed command checked as good`);
    t.same(got('k4'), [false, 'check_cmd determined the state failed'], `test=${test}: after unless skipped the call`);
    t.equal(byId(out.running, 'k4').skip_watch, true);
    t.same(got('k5'), [true, 'checked it myself'], `test=${test}: the function's own check_cmd`);
    t.same(byId(out.running, 'k5').changes, { checked: 'false' });
  }
});

t.test('retry: attempts until the wanted result, comments per attempt', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-rt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const f = join(dir, 'count');
  const waits: number[] = [];
  const out = await run(
    [
      chunk('cmd', 'run', 'flaky', { name: `echo x >> ${f}; test $(wc -l < ${f}) -ge 3`, retry: { attempts: 5, interval: 2 } }),
      chunk('cmd', 'run', 'never', { name: 'false', retry: { attempts: 2, interval: 0 } }),
    ],
    {
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  );
  const flaky = byId(out.running, 'flaky');
  t.equal(flaky.result, true);
  t.match(flaky.comment, /^Attempt 1: Returned a result of "False", with the following comment: "Command .* run"\nAttempt 2: Returned a result of "False"/);
  t.same(waits, [2000, 2000]);
  t.match(byId(out.running, 'never').comment, /^Attempt 1: .*\nCommand "false" run$/);
  const test = await run([chunk('cmd', 'run', 'r', { name: 'true', retry: true })], { test: true });
  t.match(byId(test.running, 'r').comment, /would have been executed {2}The state would be retried every 30 seconds/);
});

t.test('parallel: independent states run at once, each with its own number', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-rt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'gate');
  // p1 waits for a file p2 writes: only concurrent execution lets both finish.
  const out = await run([
    chunk('cmd', 'run', 'p1', { name: `while [ ! -f ${fifo} ]; do sleep 0.01; done; echo one`, parallel: true }),
    chunk('cmd', 'run', 'p2', { name: `touch ${fifo}; echo two`, parallel: true }),
    chunk('cmd', 'run', 'after', { name: 'echo after', require: [{ cmd: 'p1' }] }),
  ]);
  t.same(
    Object.values(out.running).map((r) => r.result),
    [true, true, true],
  );
  t.same(
    ['p1', 'p2', 'after'].map((id) => byId(out.running, id).__run_num__),
    [0, 1, 2],
  );
});

t.test('a throwing function, an unknown function, an unavailable module, bad arguments', async (t) => {
  const out = await run([
    T('boom', 'throws'),
    T('nofun', 'does_not_exist'),
    chunk('pkgx', 'installed', 'vim'),
    T('badarg', 'succeed_without_changes', { bogus: 1 }),
    T('typed', 'succeed_without_changes', { comment: 5 }),
    T('fine'),
  ]);
  t.equal(byId(out.running, 'boom').comment, 'An exception occurred in this state: kaboom');
  t.equal(byId(out.running, 'nofun').comment, "State 'test.does_not_exist' was not found in SLS 'main'\nReason: 'test.does_not_exist' is not available.\n");
  t.match(byId(out.running, 'vim').comment, /not available on this host: dpkg not found/);
  t.equal(byId(out.running, 'badarg').result, true, 'an unknown keyword is ignored, as by Salt **kwargs');
  t.match(byId(out.running, 'typed').comment, /must be a string, not a number/);
  t.equal(byId(out.running, 'fine').result, true);
});

t.test('the context: low, running so far, lowstate, test', async (t) => {
  const seen: Array<{ id: string; running: string[]; lowstate: number; test: boolean }> = [];
  const spy = {
    name: 'spy',
    available: () => ({ available: true }),
    functions: {
      look: {
        args: {},
        run: async (a: Record<string, unknown>, ctx: import('@brine/core').StateContext) => {
          seen.push({ id: ctx.low.__id__, running: Object.keys(ctx.running), lowstate: ctx.lowstate.length, test: ctx.test });
          return { name: String(a.name), result: true, changes: {}, comment: '' };
        },
      },
    },
  };
  await runLowState([chunk('spy', 'look', 'a'), chunk('spy', 'look', 'b')], { registry: makeRegistry(spy), cmd: shellRunner(), files: noFiles, test: true });
  t.same(seen, [
    { id: 'a', running: [], lowstate: 2, test: true },
    { id: 'b', running: ['spy_|-a_|-a_|-look'], lowstate: 2, test: true },
  ]);
});

t.test('arg binding: whole values keep their type, embedded ones are text, failures name the reference', async (t) => {
  const ns = { id: 'i-123', nics: [{ address: '10.0.0.1' }, { address: '10.0.0.2' }], port: 8080 };
  const low = [
    T('a', 'echo_args', {
      id_copy: '${test:b:id}',
      first: '${test:b:nics[0]:address}',
      all: '${test:b:nics[*]:address}',
      url: 'http://${test:b:nics[1]:address}:${test:b:port}/',
      port: '${test:b:port}',
      other: '${HOME}',
      arg_bind: [{ test: 'b' }],
    }),
    T('b', 'succeed_with_changes', { new_state: ns }),
    T('c', 'echo_args', { x: '${test:b:nope}', arg_bind: [{ test: 'b' }] }),
    T('d', 'echo_args', { x: '${test:e:id}', arg_bind: [{ test: 'e' }] }),
    T('e'),
  ];
  const out = await run(low);
  t.same(order_(out.running), ['b', 'a', 'c', 'e', 'd']);
  t.same(JSON.parse(byId(out.running, 'a').comment), {
    name: 'a',
    id_copy: 'i-123',
    first: '10.0.0.1',
    all: ['10.0.0.1', '10.0.0.2'],
    url: 'http://10.0.0.2:8080/',
    port: 8080,
    other: '${HOME}',
  });
  t.equal(byId(out.running, 'c').comment, "Cannot resolve argument binding ${test:b:nope}: property 'nope' not found in the new_state of test.b");
  t.equal(byId(out.running, 'd').comment, 'Cannot resolve argument binding ${test:e:id}: state test.e returned no new_state');
  const test = await run(low, { test: true });
  t.equal(JSON.parse(byId(test.running, 'd').comment).x, '${test:e:id}', 'test mode: the reference text is the placeholder');
  t.equal(JSON.parse(byId(test.running, 'c').comment).x, '${test:b:nope}');
});

t.test('a runtime cycle (compiler missed it) fails the state instead of hanging', async (t) => {
  const out = await run([T('x', 'succeed_without_changes', { require: [{ test: 'y' }] }), T('y', 'succeed_without_changes', { require: [{ test: 'x' }] })]);
  t.equal(byId(out.running, 'y').comment, 'Recursive requisite found');
  t.equal(byId(out.running, 'x').result, false);
});

t.test('a bad low state is a coded error', async (t) => {
  await t.rejects(run({} as unknown as LowChunk[]), { code: 'BRINE_ERR_RUNTIME_BAD_LOWSTATE' });
});

t.test('a requisite chain far deeper than the stack runs in the recursive order', async (t) => {
  // Each state requires the one after it, so the first chunk pulls the whole chain in.
  const n = 30000;
  const low: LowChunk[] = [];
  for (let i = 0; i < n; i++) low.push(T(`c${i}`, 'succeed_without_changes', i + 1 < n ? { require: [{ test: `c${i + 1}` }] } : {}));
  const out = await run(low);
  t.equal(out.retcode, 0);
  const ran = order_(out.running);
  t.equal(ran.length, n);
  t.equal(ran[0], `c${n - 1}`, 'the deepest requisite runs first');
  t.equal(ran[n - 1], 'c0');
  // The same order a short chain gets through plain recursion.
  const short = await run([
    T('a', 'succeed_without_changes', { require: [{ test: 'b' }, { test: 'c' }] }),
    T('b', 'succeed_without_changes', { require: [{ test: 'c' }] }),
    T('c'),
  ]);
  t.same(order_(short.running), ['c', 'b', 'a']);
});
