import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { MasterStore } from '../src/store.js';
import { SqliteBackend } from '../src/store-sqlite.js';
import { countTurns } from './helpers/turns.js';

/**
 * A job to 10,000 minions records its expected minions a few thousand per turn of the event loop,
 * and its publisher (the job's event, its send queue, its first frames) goes on in a turn of its
 * own: that work added to the last slice of rows made publishing's longest turn. Turns are
 * counted by a chain of setImmediate, not timed.
 */
t.test('a large job is recorded over several turns and its caller goes on in a later one', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-job-insert-'));
  const store = new MasterStore(path.join(dir, 'master.db'));
  t.teardown(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const backend = new SqliteBackend(store);
  const turns = countTurns();
  const rowsAt = new Map<number, number>();
  const note = (n: number): void => void rowsAt.set(turns.count, (rowsAt.get(turns.count) ?? 0) + n);
  const insertJob = store.insertJob.bind(store);
  store.insertJob = (job, minions) => {
    note(minions?.length ?? job.expected.length);
    insertJob(job, minions);
  };
  const expectMinions = store.expectMinions.bind(store);
  store.expectMinions = (jid, minions) => {
    note(minions.length);
    expectMinions(jid, minions);
  };
  const expected = Array.from({ length: 10_000 }, (_, i) => `m${String(i).padStart(5, '0')}`);
  await backend.insertJob({
    jid: '20261127210000000001',
    fun: 'test.ping',
    arg: [],
    kwarg: {},
    target: '*',
    tgt_type: 'glob',
    user: 'root',
    batch: null,
    created_at: new Date().toISOString(),
    expected,
  });
  const resumedAt = turns.count;
  turns.stop();
  t.ok(rowsAt.size > 1, `rows recorded over ${rowsAt.size} turns`);
  t.ok(Math.max(...rowsAt.values()) <= 2000, 'at most 2,000 expected rows a turn');
  t.ok(resumedAt > Math.max(...rowsAt.keys()), 'the caller goes on in a turn after the last rows');
  t.equal((await backend.getJob('20261127210000000001'))?.expected.length, 10_000);
  t.ok(await backend.isExpected('20261127210000000001', 'm09999'), 'the last minion is expected once insertJob resolves');
  const small = '20261127210000000002';
  const first = (await backend.getJob('20261127210000000001'))!;
  const again = countTurns();
  await backend.insertJob({ ...first, jid: small, expected: ['a', 'b'] });
  t.equal(again.count, 0, 'a small job is recorded in the turn it is asked for');
  again.stop();
});
