import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { batchSize } from '../src/jobs.js';
import { JidGenerator, jidToIso } from '../src/jid.js';
import Database from 'better-sqlite3';
import { MasterStore } from '../src/store.js';
import { MIGRATIONS } from '../src/migrations.js';
import { StateResultStore } from '../src/state-results.js';

function tmpStore(t: { teardown(fn: () => void): void }): MasterStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-store-'));
  const store = new MasterStore(path.join(dir, 'master.db'));
  t.teardown(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

t.test('jids are 20 digits, UTC, strictly increasing even within one microsecond', async (t) => {
  const gen = new JidGenerator();
  const now = new Date('2025-03-04T05:06:07.089Z');
  const a = gen.next(now);
  const b = gen.next(now);
  t.match(a, /^20250304050607089\d{3}$/);
  t.ok(BigInt(b) > BigInt(a));
  t.equal(jidToIso(a), '2025-03-04T05:06:07.089Z');
  const after = new JidGenerator('99990101000000000000');
  t.equal(after.next(now), '99990101000000000001', 'never below the last stored jid');
});

t.test('batch sizes: a number or a percentage, at least one', async (t) => {
  t.equal(batchSize('2', 10), 2);
  t.equal(batchSize(3, 10), 3);
  t.equal(batchSize('25%', 10), 3);
  t.equal(batchSize('1%', 10), 1);
  t.throws(() => batchSize('x', 10), { code: 'BRINE_ERR_MASTER_BAD_BATCH' });
  t.throws(() => batchSize('0', 10), { code: 'BRINE_ERR_MASTER_BAD_BATCH' });
});

t.test('a return is stored once; callbacks run after commit; retention prunes by age', async (t) => {
  const store = tmpStore(t);
  t.equal(store.schemaVersion, MIGRATIONS.length, 'every schema step ran');
  const job = {
    jid: '20250101000000000001',
    fun: 'test.ping',
    arg: [],
    kwarg: {},
    target: '*',
    tgt_type: 'glob',
    user: 'root',
    batch: null,
    created_at: '2025-01-01T00:00:00.000Z',
    expected: ['a', 'b'],
  };
  store.insertJob(job);
  t.ok(store.isExpected(job.jid, 'a'));
  t.notOk(store.isExpected(job.jid, 'c'));
  const ret = { jid: job.jid, minion: 'a', fun: 'test.ping', success: true, retcode: 0, return: true, started: '', finished: '' };
  const results: boolean[] = [];
  await new Promise<void>((resolve) => {
    store.insertReturn(ret, (inserted) => results.push(inserted));
    store.insertReturn(ret, (inserted) => {
      results.push(inserted);
      resolve();
    });
  });
  t.same(results, [true, false]);
  t.equal(store.returnsOf(job.jid).length, 1);
  t.same(
    store.listJobs({ minion: 'b' }).map((j) => j.returned),
    [1],
  );
  t.same(store.listJobs({ minion: 'zzz' }), []);
  store.insertJob({ ...job, jid: '20990101000000000001', created_at: new Date().toISOString() });
  const pruned = store.prune(3600);
  t.same(pruned.jobs, 1);
  t.equal(store.returnsOf(job.jid).length, 0, 'returns go with their job');
  t.equal(store.listJobs().length, 1);
});

t.test('the schema survives reopening (migrations run once)', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'master.db');
  const s1 = new MasterStore(file);
  s1.insertKey('m', 'PEM', 'AA', 'pending');
  s1.close();
  const s2 = new MasterStore(file);
  t.equal(s2.keysOf('m')[0]!.state, 'pending');
  t.equal(s2.db.pragma('journal_mode', { simple: true }), 'wal');
  s2.close();
});

t.test("returns are indexed by their key alone: a fleet's returns cost no write at a random place besides it", async (t) => {
  const store = tmpStore(t);
  const indexes = (store.db.pragma('index_list(returns)') as Array<{ name: string; origin: string }>).map((i) => `${i.name} (${i.origin})`);
  t.same(indexes, ['sqlite_autoindex_returns_1 (pk)'], 'only the (jid, minion) key: every read of returns is by job');
  // every query of returns the master makes is answered through that key
  const plans = [
    ['SELECT * FROM returns WHERE jid = ? AND minion > ? ORDER BY minion LIMIT ?', ['j', '', 100]],
    ['SELECT count(*) AS n FROM returns WHERE jid = ?', ['j']],
    ['SELECT 1 FROM returns r WHERE r.jid = ? AND r.minion = ?', ['j', 'm']],
  ] as const;
  for (const [sql, params] of plans) {
    const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('; ');
    t.match(plan, /USING (COVERING )?INDEX sqlite_autoindex_returns_1/, sql);
  }
});

t.test('a state result sent twice (a minion resending its spool) is stored once', async (t) => {
  const store = tmpStore(t);
  const jid = '20250304050607089000';
  store.insertJob({
    jid,
    fun: 'state.apply',
    arg: [],
    kwarg: {},
    target: 'm1',
    tgt_type: 'glob',
    user: 'root',
    batch: null,
    created_at: new Date().toISOString(),
    expected: ['m1'],
  });
  const results = new StateResultStore(store);
  const item = { run_num: 0, tag: 'test_|-a_|-a_|-nop', ret: { result: true, changes: {}, comment: 'ok', __id__: 'a', name: 'a' } };
  results.insert(jid, 'm1', [item]);
  results.insert(jid, 'm1', [item, { ...item, run_num: 1, tag: 'test_|-b_|-b_|-nop' }]);
  store.flush();
  t.same(
    results.ofJob(jid).map((r) => r.run_num),
    [0, 1],
    'one row per (job, minion, run number)',
  );
});

t.test('a store from before the one-live-key rule: its extra live keys are settled as one master would have', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'master.db');
  const old = new Database(file);
  for (const step of MIGRATIONS.slice(0, 3)) old.exec(step);
  old.pragma('user_version = 3');
  const add = old.prepare('INSERT INTO keys (minion, pub, fingerprint, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  // two masters landed a first key each; a preseeded key beside a pending one; one key alone
  add.run('raced', 'P1', 'B', 'pending', '2026-01-01T00:00:01Z', 'x');
  add.run('raced', 'P2', 'A', 'pending', '2026-01-01T00:00:02Z', 'x');
  add.run('preseeded', 'P3', 'C', 'pending', '2026-01-01T00:00:01Z', 'x');
  add.run('preseeded', 'P4', 'D', 'accepted', '2026-01-01T00:00:05Z', 'x');
  add.run('alone', 'P5', 'E', 'rejected', '2026-01-01T00:00:01Z', 'x');
  old.close();
  const store = new MasterStore(file);
  t.teardown(() => store.close());
  const states = (id: string) => Object.fromEntries(store.keysOf(id).map((r) => [r.fingerprint, r.state]));
  t.same(states('raced'), { B: 'pending', A: 'denied' }, 'the older key stays');
  t.same(states('preseeded'), { C: 'denied', D: 'accepted' }, 'an accepted key stays');
  t.same(states('alone'), { E: 'rejected' });
  t.equal(store.insertKey('alone', 'P6', 'F', 'pending'), false, 'and the rule holds from now on');
});
