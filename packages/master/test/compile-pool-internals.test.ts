import { serialize } from 'node:v8';
import type { ChildProcess } from 'node:child_process';
import type { Logger } from '@brine/core';
import t from 'tap';
import { CompilePool } from '../src/compile-pool.js';
import { poolConfig } from './helpers/pool-config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

/**
 * The compile pool's bookkeeping, driven from inside: the messages a worker could send (a stale
 * one, a file it starts rendering, a result that could not cross, an error), the watchdog's
 * timer (its limit, restarted per file, and what it does when it fires, without burning a core
 * for render_timeout), a worker lost twice, a pool closed with work queued, and what the master
 * logs. Real worker processes; only the messages and the timer's firing are stood in for.
 */
const config = poolConfig(t, 'brine-pool-inside-', {}, { render_timeout: 10 });

/** A logger that keeps what is logged. */
function recorder(): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string) => lines.push({ level, ...obj, msg });
  const log = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace'), fatal: at('fatal') };
  return { log: { ...log, child: () => log } as unknown as Logger, lines };
}

type Timer = NodeJS.Timeout & { _idleTimeout: number; _onTimeout: () => void; _destroyed: boolean };
type Slot = {
  child: ChildProcess;
  running?: { id: number; file?: string; timer?: Timer };
  trees: { files: { known: Set<string> }; pillars: { known: Set<string> } };
  gone?: boolean;
};
type Inside = { slots: Slot[]; onMessage(slot: Slot, m: unknown): void; lost(slot: Slot, detail: string): void };
const inside = (pool: CompilePool) => pool as unknown as Inside;

async function setup(t: { teardown(fn: () => unknown): void }) {
  const { log, lines } = recorder();
  const states = new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
  const pool = new CompilePool(config, log, 1);
  t.teardown(() => pool.close());
  await pool.started();
  const task = (id = 'm1') =>
    pool.pillar(id, { os: 'Debian' }, {}, states.pillars.snapshot()).then(
      (r) => r,
      (e: Error & { code?: string }) => e,
    );
  return { pool, lines, task, slot: () => inside(pool).slots[0]! };
}

t.test('the watchdog: render_timeout plus the grace, restarted per file, unreferenced; when it fires the compile fails naming the file', async (t) => {
  const { pool, lines, task, slot } = await setup(t);
  const first = slot();
  const running = task();
  const r = first.running!;
  t.equal(r.timer?._idleTimeout, 15_000, 'armed at dispatch for render_timeout + 5 s');
  t.equal(r.timer?.hasRef(), false, 'the watchdog alone keeps no process alive');
  const before = r.timer!;
  inside(pool).onMessage(first, { task: r.id, rendering: 'word.sls' });
  t.equal(r.file, 'word.sls');
  t.ok(before._destroyed, 'the old timer is cleared');
  t.not(r.timer, before, 'a new one runs for the new file');
  r.timer!._onTimeout();
  const err = (await running) as Error & { code?: string };
  t.equal(err.code, 'BRINE_ERR_MASTER_COMPILE_WORKER');
  t.match(err.message, /word\.sls/);
  t.match(err.message, /more than 15 s \(render_timeout 10 s and 5 s grace\)/);
  t.ok(first.child.killed, 'the stuck worker is killed');
  t.not(slot(), first, 'and replaced');
  t.match(lines, [{ level: 'error', event: 'compile_worker_lost', msg: 'a compile worker died or was stopped; it is replaced' }]);
  t.equal(lines[0]!.stderr, undefined, 'no stderr from it');
  t.match(lines[0]!.detail, /rendered one file for more than 15 s/);
  t.same(((await task('m2')) as { pillar: unknown }).pillar, { colour: 'blue' }, 'the new worker compiles');
});

t.test('a stale message is ignored; a result that could not cross or an error fails only its compile and forgets the shipped trees', async (t) => {
  const { pool, task, slot } = await setup(t);
  inside(pool).onMessage(slot(), { task: 999, rendering: 'x.sls' });
  t.pass('a message with no task running is ignored');
  const one = task('m1');
  const r = slot().running!;
  inside(pool).onMessage(slot(), { task: r.id + 1, rendering: 'other.sls' });
  t.equal(r.file, undefined, "another task's message does not touch this one");
  inside(pool).onMessage(slot(), { task: r.id, transfer: 'the result cannot be cloned' });
  const e1 = (await one) as Error & { code?: string };
  t.equal(e1.code, 'BRINE_ERR_MASTER_COMPILE_TRANSFER');
  t.match(e1.message, /minion m1: the pillar .*the result cannot be cloned/);
  t.equal(slot().trees.pillars.known.size, 0, 'the next task ships whole trees');
  await task('m2');
  t.ok(slot().trees.pillars.known.size > 0, 'a task that went through leaves the tree known to the worker');
  const two = task('m3');
  inside(pool).onMessage(slot(), { task: slot().running!.id, data: serialize({ error: 'the template broke' }) });
  const e2 = (await two) as Error;
  t.equal(e2.message, 'the template broke');
  t.equal(slot().trees.pillars.known.size, 0);
});

t.test('a worker lost twice is replaced once; a pool that closed replaces nothing and leaves no worker', async (t) => {
  const { pool, slot } = await setup(t);
  const first = slot();
  inside(pool).lost(first, 'stopped by the test');
  const second = slot();
  t.not(second, first);
  inside(pool).lost(first, 'the same worker again');
  t.equal(slot(), second, 'not replaced twice');
  await pool.close();
  t.ok(
    inside(pool).slots.every((s) => s.child.exitCode !== null || s.child.signalCode !== null),
    'every worker is gone after close()',
  );
});

t.test('tasks queue for a busy worker and run in turn; closing fails what is still queued', async (t) => {
  const { pool, task } = await setup(t);
  const [a, b] = (await Promise.all([task('m1'), task('m2')])) as Array<{ pillar: unknown }>;
  t.same([a!.pillar, b!.pillar], [{ colour: 'blue' }, { colour: 'blue' }], 'the second ran after the first');
  const running = task('m3');
  const queued = task('m4');
  await pool.close();
  t.match(await running, { message: 'the compile pool is closed' });
  t.match(await queued, { message: 'the compile pool is closed' });
});

t.test('grains that cannot be sent fail their compile, saying so', async (t) => {
  const { pool } = await setup(t);
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 4500; i++) deep = { a: deep };
  const states = new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), recorder().log);
  const err = await pool.pillar('deep', { os: 'Debian', deep }, {}, states.pillars.snapshot()).then(
    () => undefined,
    (e: Error) => e,
  );
  t.match(err?.message, /it cannot be sent/);
});

t.test('a worker that exits before it starts fails started(); one that reports more rights than given is logged', async (t) => {
  const pool = new CompilePool(config, recorder().log, 1);
  t.teardown(() => pool.close());
  const child = inside(pool).slots[0]!.child;
  process.kill(child.pid!, 'SIGKILL');
  await t.rejects(pool.started(), { message: /a compile worker exited before it started/ });
  const { pool: other, lines: seen, slot } = await setup(t);
  inside(other).onMessage(slot(), { ready: { permission: false, child: false, worker: false, write: false, readable: {} } });
  t.match(seen, [
    { level: 'error', event: 'compile_worker_unconfined', confinement: { permission: false }, msg: 'a compile worker runs with more rights than it was given' },
  ]);
  const ok = { permission: true, child: false, worker: false, write: false, readable: {} };
  inside(other).onMessage(slot(), { ready: ok });
  t.equal(seen.length, 1, 'a confined one is not');
});
