/**
 * Run as its own process by store-pg-client-errors.test.ts (a crash here is the failure that test
 * looks for, and must not take the test runner down with it). A store's transaction is cut off by
 * the server while the store holds its client; the process must survive it, the write must fail,
 * and the next write must succeed on a fresh connection. Prints `survived` at the end.
 */
import pg from 'pg';
import { PgStore, withPassword } from '../../src/store-pg.js';
import type { JobRow } from '../../src/store.js';

const url = process.env.BRINE_TEST_PG_URL!;
const password = process.env.BRINE_TEST_PG_PASSWORD!;
const job = (jid: string): JobRow => ({
  jid,
  fun: 'test.ping',
  arg: [],
  kwarg: {},
  target: 'm1',
  tgt_type: 'glob',
  user: 'ops',
  batch: null,
  created_at: new Date().toISOString(),
  expected: ['m1'],
});

const store = await PgStore.open(url, password);
const locker = new pg.Client({ connectionString: withPassword(url, password) });
await locker.connect();
// pg_stat_activity read inside a transaction is a snapshot: the watcher reads it outside one
const watcher = new pg.Client({ connectionString: withPassword(url, password) });
await watcher.connect();
// the store's insert waits on this lock, holding its pooled client, until the server cuts it off
await locker.query('BEGIN');
await locker.query('LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE');
const first = store.insertJob(job('20260101000000000001')).then(
  () => 'stored',
  (err: Error) => `failed: ${err.message}`,
);
let pid: number | undefined;
for (let i = 0; pid === undefined; i++) {
  if (i > 500) throw new Error('the store never waited on the lock');
  const r = await watcher.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO jobs%'");
  pid = r.rows[0]?.pid;
  if (pid === undefined) await new Promise((r) => setTimeout(r, 10));
}
await watcher.query('SELECT pg_terminate_backend($1)', [pid]);
await locker.query('ROLLBACK');
console.log(`first: ${await first}`);
await store.insertJob(job('20260101000000000002'));
console.log(`second: ${(await store.getJob('20260101000000000002')) ? 'stored' : 'missing'}`);
await locker.end();
await watcher.end();
await store.close();
console.log('survived');
