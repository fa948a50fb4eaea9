import type { ChildProcess } from 'node:child_process';
import { createLogger } from '@brine/core';
import t from 'tap';
import { CompilePool, confined } from '../src/compile-pool.js';
import { poolConfig } from './helpers/pool-config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

/**
 * The compile pool's life: what counts as a confined worker, a pool that is closed refusing work,
 * a template error failing only its compile, a worker killed mid-task failing only its task and
 * replaced, a worker's late 'ready' while close() waits. (The watchdog, which needs a template
 * burning a core for render_timeout plus its grace, is test/compile-watchdog.test.ts.)
 */
const config = poolConfig(t, 'brine-pool-life-', {
  'top.sls': "base:\n  'good*':\n    - one\n  'bad*':\n    - broken\n",
  'one.sls': 'one:\n  test.nop:\n    - name: {{ grains.os }}\n',
  'broken.sls': 'broken:\n  test.nop:\n    - name: {{ grains.os | no_such_filter }}\n',
});
const log = createLogger({ level: 'silent' });

type Slot = { child: ChildProcess };
const slots = (pool: CompilePool) => (pool as unknown as { slots: Slot[] }).slots;

async function service(t: { teardown(fn: () => unknown): void }, size = 1): Promise<{ states: StateService; pool: CompilePool }> {
  const s = new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
  const pool = new CompilePool(config, log, size);
  t.teardown(() => pool.close());
  s.usePool(pool);
  return { states: s, pool };
}

t.test('a worker is confined only with the permission model on and nothing else allowed', async (t) => {
  const ok = { permission: true, child: false, worker: false, write: false, readable: { '/data': false, '/pki': false } };
  t.ok(confined(ok));
  t.notOk(confined({ ...ok, permission: false }), 'no permission model');
  t.notOk(confined({ ...ok, child: true }), 'child processes');
  t.notOk(confined({ ...ok, worker: true }), 'worker threads');
  t.notOk(confined({ ...ok, write: true }), 'writes');
  t.notOk(confined({ ...ok, readable: { '/data': false, '/pki': true } }), 'one denied path readable');
});

t.test('the pool has at least one worker; each reports its confinement once started; a closed pool refuses work', async (t) => {
  const { states: s, pool } = await service(t, 0);
  t.equal(pool.size, 1, 'compile_workers 0 still means one worker');
  t.same(pool.confinement, [undefined], 'nothing reported before it starts');
  const [c] = await pool.started();
  t.same(pool.confinement, [c]);
  t.ok(confined(c!));
  const two = new CompilePool(config, log, 2);
  t.equal(two.size, 2);
  await two.close();
  await pool.close();
  await t.rejects(pool.pillar('m', { os: 'Debian' }, {}, s.pillars.snapshot()), { message: 'the compile pool is closed' });
});

t.test('a template error fails only its compile; the worker goes on', async (t) => {
  const { states: s } = await service(t);
  const bad = await s.compile('bad1', { os: 'Debian' }, { mode: 'highstate' });
  t.ok(bad.failed, 'the broken template fails the compile');
  t.match(bad.errors.join('\n'), /no_such_filter/);
  const good = await s.compile('good1', { os: 'Debian' }, { mode: 'highstate' });
  t.notOk(good.failed, good.errors.join('\n'));
  t.same(
    good.low.map((c) => c.name),
    ['Debian'],
  );
});

t.test('a worker killed mid-task fails that task only, naming why; a new worker takes its place', async (t) => {
  const { states: s, pool } = await service(t);
  await pool.started();
  const first = slots(pool)[0]!.child;
  // stopped first, so the task cannot finish before the kill lands (a fast machine did)
  process.kill(first.pid!, 'SIGSTOP');
  const task = pool.pillar('m1', { os: 'Debian' }, {}, s.pillars.snapshot()).then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );
  process.kill(first.pid!, 'SIGKILL');
  const err = await task;
  t.equal(err?.code, 'BRINE_ERR_MASTER_COMPILE_WORKER');
  t.match(err?.message, /\(before the first template\)/, 'no template had started');
  t.match(err?.message, /it exited \(SIGKILL\)/, 'and why');
  t.not(slots(pool)[0]!.child, first, 'a new worker replaced it');
  const ok = await pool.pillar('m2', { os: 'Debian' }, {}, s.pillars.snapshot());
  t.same(ok.pillar, { colour: 'blue' }, 'the new worker compiles (the trees shipped to it afresh)');
});

t.test("a worker's 'ready' that arrives while close() waits does not let go of it", async (t) => {
  const pool = new CompilePool(config, log, 1);
  const ready = await pool.started();
  const closing = pool.close();
  const slot = slots(pool)[0]!;
  const child = slot.child as unknown as { _handle: { hasRef(): boolean } | null };
  t.ok(child._handle?.hasRef(), 'held while close() waits');
  // the message a worker sends when it has started, handled as if it came now
  (pool as unknown as { onMessage(slot: Slot, m: unknown): void }).onMessage(slot, { ready: ready[0] });
  t.ok(child._handle?.hasRef(), 'still held');
  await closing;
});
