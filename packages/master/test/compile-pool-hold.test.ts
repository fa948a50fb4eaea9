import type { ChildProcess } from 'node:child_process';
import { createLogger } from '@brine/core';
import t from 'tap';
import { CompilePool } from '../src/compile-pool.js';
import { poolConfig } from './helpers/pool-config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

/**
 * What keeps the master's process alive: an idle pool never does (a command that is done exits);
 * a worker that runs a task, and one that close() is waiting for, does, with every handle its
 * 'close' event waits for. close() waits for a killed worker's 'close', which comes only after
 * its stderr pipe closes: an unreferenced pipe let `brine demo` exit with code 13 while close()
 * still waited. Whether the process would exit is read from the handles' own reference flags.
 */
const config = poolConfig(t, 'brine-pool-hold-');
const log = createLogger({ level: 'silent' });

type Handle = { hasRef(): boolean } | null | undefined;
/** The worker's process and stderr pipe, and whether each keeps the event loop alive. */
function held(pool: CompilePool): { process: boolean; stderr: boolean } {
  const [slot] = (pool as unknown as { slots: Array<{ child: ChildProcess }> }).slots;
  const child = slot!.child as unknown as { _handle: Handle; stderr: { _handle: Handle } };
  return { process: child._handle?.hasRef() ?? false, stderr: child.stderr._handle?.hasRef() ?? false };
}

t.test('an idle pool holds nothing; a running task and close() hold the worker and its stderr pipe', async (t) => {
  const states = new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
  const pool = new CompilePool(config, log, 1);
  t.teardown(() => pool.close());
  await pool.started();
  t.same(held(pool), { process: false, stderr: false }, 'an idle worker keeps no process alive');
  const task = pool.pillar('m1', { os: 'Debian' }, {}, states.pillars.snapshot());
  t.same(held(pool), { process: true, stderr: true }, 'a worker running a task is held, its stderr too');
  t.same((await task).pillar, { colour: 'blue' }, 'the task completes');
  t.same(held(pool), { process: false, stderr: false }, 'idle again, it is let go');

  const running = pool.pillar('m2', { os: 'Debian' }, {}, states.pillars.snapshot()).catch((e: Error) => e.message);
  const closing = pool.close();
  t.same(held(pool), { process: true, stderr: true }, 'while close() waits for the killed worker, its process and stderr pipe are held');
  await closing;
  t.equal(await running, 'the compile pool is closed', 'the running task fails with the close');
});

t.test('an idle pool that closes holds its worker until it is gone', async (t) => {
  const pool = new CompilePool(config, log, 1);
  await pool.started();
  t.same(held(pool), { process: false, stderr: false });
  const closing = pool.close();
  t.same(held(pool), { process: true, stderr: true }, 'close() holds what it waits for');
  await closing;
});
