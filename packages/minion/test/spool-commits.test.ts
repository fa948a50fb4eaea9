import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { ResultSpool } from '../src/spool.js';

/**
 * A minion's job costs it SQLite commits, and the agents of a fleet share the hosts' cores: the
 * ack of one job and the admission of the next (the master sends them in one write) are one
 * commit, a job's return another, and an ack nothing follows is applied in the next turn. The
 * commits are counted in spool.db's write-ahead log: each ends with a commit frame.
 */

/** Commit frames in a WAL file (a frame header's second word is the database size, set on commits). */
function commits(wal: string): number {
  const b = readFileSync(wal);
  const page = b.readUInt32BE(8);
  let n = 0;
  for (let at = 32; at + 24 + page <= b.length; at += 24 + page) if (b.readUInt32BE(at + 4) !== 0) n++;
  return n;
}

function spoolIn(t: Test): { s: ResultSpool; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-spool-commits-'));
  const file = path.join(dir, 'spool.db');
  const s = new ResultSpool(file);
  t.teardown(() => {
    try {
      s.close();
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  return { s, file };
}

const ret = (jid: string) => ({ jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: 'a', finished: 'b' });
function stored(file: string, jid: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) AS n FROM spool WHERE jid = ?').get(jid);
  } finally {
    db.close();
  }
}

t.test('an ack and the next job admitted are one commit; the job and its return two in all', async (t) => {
  const { s, file } = spoolIn(t);
  s.finish(ret('1'));
  const c0 = commits(`${file}-wal`);
  s.ack('1');
  t.equal(s.admit('2', 'test.ping', 'at-2'), true, 'a new job');
  t.equal(commits(`${file}-wal`) - c0, 1, 'the ack and the admission in one commit');
  t.same(stored(file, '1'), { n: 0 }, 'the acked return is gone for other readers too');
  s.finish(ret('2'));
  t.equal(commits(`${file}-wal`) - c0, 2, 'the return: one more');
  t.equal(s.admit('2', 'test.ping', 'at-2b'), false, 'a job received twice is refused');
  t.same(
    s.recoverInterrupted(() => ret('x')),
    [],
    'nothing left running',
  );
});

t.test('an ack nothing follows is applied in the next turn; readers see it at once', async (t) => {
  const { s, file } = spoolIn(t);
  s.finish(ret('1'));
  s.finish(ret('2'));
  s.ack('1');
  t.same(stored(file, '1'), { n: 1 }, 'not yet in the file');
  t.equal(s.size(), 1, 'but the spool itself counts it acked');
  s.ack('2');
  s.ackStates('2', [0]);
  await nextTurn();
  t.same(stored(file, '2'), { n: 0 }, 'applied in the next turn');
  t.equal(s.size(), 0);
});

/** Pages (frames) in a WAL file. */
function frames(wal: string): number {
  const b = readFileSync(wal);
  return Math.floor((b.length - 32) / (24 + b.readUInt32BE(8)));
}

t.test('a ping admitted with the ack of the one before writes two pages: received and its return', async (t) => {
  const { s, file } = spoolIn(t);
  const make = (jid: string) => () => ret(jid);
  s.admitFinished('1', 'at-1', make('1'));
  const f0 = frames(`${file}-wal`);
  s.ack('1');
  t.ok(s.admitFinished('2', 'at-2', make('2')), 'a new job');
  // a new spool's returns are one b-tree keyed by jid (no rowid table beside its key's index)
  t.equal(frames(`${file}-wal`) - f0, 2, 'the seen page and the spool page');
  t.same(stored(file, '1'), { n: 0 }, 'the acked return is gone');
  t.same(
    s.pending().map((r) => r.jid),
    ['2'],
    'the new one is spooled',
  );
});
