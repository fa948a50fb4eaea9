import { openSync, readFileSync, rmSync, statSync, truncateSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { Cluster } from './helpers/cluster.js';
import { BrineProcess, until } from './helpers/proc.js';

/**
 * The master's store under failure, through real processes: a write that cannot commit is
 * retried (the master stays up and acknowledges nothing before the commit); a damaged or
 * truncated master.db is refused at start with a message naming the file and the way out.
 */

t.test('a store write that fails is retried, logged with a code, and the result stored once', async (t) => {
  const c = await new Cluster({ minions: ['w1'] }).start();
  t.teardown(() => c.close());
  const dbFile = path.join(c.dir, 'master', 'master.db');
  // Another process holds the write lock: the master's batch fails (SQLITE_BUSY after its
  // busy timeout) until the lock is released.
  // The job is published first (publishing writes at once: it must be stored to exist), then
  // another process takes the write lock while the minion sleeps: the master's batch with the
  // return fails (SQLITE_BUSY after its busy timeout) until the lock is released.
  const { jid } = await c.client.post<{ jid: string }>('/v1/jobs', { tgt: 'w1', fun: 'test.sleep', arg: [1] });
  const blocker = new Database(dbFile);
  blocker.exec('BEGIN EXCLUSIVE');
  const since = c.master.lines.length;
  const failed = await c.master.waitFor((l) => l.event === 'store_write_failed', 'store_write_failed', 30_000, since);
  t.equal(failed.code, 'BRINE_ERR_MASTER_STORE_WRITE');
  t.match(String(failed.msg), dbFile, 'the message names the store file');
  t.ok(c.master.running, 'the master is still running');
  blocker.exec('COMMIT');
  blocker.close();
  const res = await until(
    async () => {
      const job = await c.client.get<{ returns: Record<string, { return: unknown }> }>(`/v1/jobs/${jid}`);
      return job.returns.w1 ? job : undefined;
    },
    'the return stored after the lock is released',
    30_000,
  );
  t.same(res.returns.w1?.return, true, 'the return arrives once the store can write again');
  const db = new Database(dbFile, { readonly: true });
  t.equal((db.prepare('SELECT count(*) AS n FROM returns WHERE jid = ?').get(jid) as { n: number }).n, 1, 'stored exactly once');
  db.close();
});

async function stoppedMaster(t: Test): Promise<Cluster> {
  const c = await new Cluster({}).start();
  t.teardown(() => c.close());
  await c.master.kill('SIGTERM');
  return c;
}

function startAgain(c: Cluster): BrineProcess {
  return new BrineProcess('master-again', ['master', '--config', c.masterConfig]);
}

t.test('a damaged master.db is refused, naming the file and the recovery', async (t) => {
  const c = await stoppedMaster(t);
  const dbFile = path.join(c.dir, 'master', 'master.db');
  t.ok(statSync(dbFile).size > 4096, 'the store has more than its first page');
  // Overwrite the second page (a table's b-tree page) with garbage.
  const fd = openSync(dbFile, 'r+');
  writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 4096);
  closeSync(fd);
  const again = startAgain(c);
  await again.exited();
  t.not(again.exitCode, 0, 'the master exits instead of serving');
  t.match(again.stderrText, 'BRINE_ERR_MASTER_STORE_CORRUPT');
  t.match(again.stderrText, dbFile);
  t.match(again.stderrText, '.recover');
});

t.test('a file that is not a database at all is refused the same way', async (t) => {
  const c = await stoppedMaster(t);
  const dbFile = path.join(c.dir, 'master', 'master.db');
  for (const f of ['-wal', '-shm']) rmSync(dbFile + f, { force: true });
  const fd = openSync(dbFile, 'r+');
  writeSync(fd, Buffer.from('this is not an SQLite header at all'), 0, 32, 0);
  closeSync(fd);
  const again = startAgain(c);
  await again.exited();
  t.not(again.exitCode, 0);
  t.match(again.stderrText, 'BRINE_ERR_MASTER_STORE_CORRUPT');
});

t.test('a 0-byte master.db beside an existing certificate and token is not a new master', async (t) => {
  const c = await stoppedMaster(t);
  const dbFile = path.join(c.dir, 'master', 'master.db');
  for (const f of ['-wal', '-shm']) rmSync(dbFile + f, { force: true });
  truncateSync(dbFile, 0);
  const again = startAgain(c);
  await again.exited();
  t.not(again.exitCode, 0);
  t.match(again.stderrText, 'BRINE_ERR_MASTER_STORE_EMPTY');
  t.match(again.stderrText, dbFile);
  t.equal(readFileSync(dbFile).length, 0, 'the empty file is left as it was');
});
