import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { ResultSpool } from '../src/spool.js';

/**
 * A fleet's agents share the hosts' cores, and every SQLite statement a job costs is paid once per
 * minion per job: an ack riding the next job's admission is its delete inside that transaction
 * (no savepoint of its own), a refusal is forgotten only when one was counted, and an ack nothing
 * follows is one statement. The statements are those SQLite runs (better-sqlite3's `verbose`).
 */

function spoolIn(t: Test, dir = mkdtempSync(path.join(os.tmpdir(), 'brine-spool-stmts-'))): { s: ResultSpool; file: string; ran: string[]; dir: string } {
  const file = path.join(dir, 'spool.db');
  const ran: string[] = [];
  const s = new ResultSpool(file, { onStatement: (sql) => ran.push(sql.split(' (')[0]!.split(' VALUES')[0]!.split(' WHERE')[0]!) });
  t.teardown(() => {
    try {
      s.close();
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  return { s, file, ran, dir };
}

const ret = (jid: string) => ({ jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: 'a', finished: 'b' });
const rows = (file: string, sql: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

t.test('a ping admitted with the ack of the one before: five statements, no savepoint, no refusal to forget', async (t) => {
  const { s, file, ran } = spoolIn(t);
  s.admitFinished('1', 'at-1', () => ret('1'));
  ran.length = 0;
  s.ack('1');
  t.ok(
    s.admitFinished('2', 'at-2', () => ret('2')),
    'a new job',
  );
  t.same(ran, ['BEGIN', 'DELETE FROM spool', 'INSERT OR IGNORE INTO seen', 'INSERT OR REPLACE INTO spool', 'COMMIT']);
  t.same(rows(file, 'SELECT jid FROM spool'), [{ jid: '2' }], 'the acked return is gone, the new one spooled');
});

t.test('an ack nothing follows: one statement in the next turn', async (t) => {
  const { s, file, ran } = spoolIn(t);
  s.admitFinished('1', 'at-1', () => ret('1'));
  ran.length = 0;
  s.ack('1');
  await nextTurn();
  t.same(ran, ['DELETE FROM spool']);
  t.same(rows(file, 'SELECT jid FROM spool'), [], 'applied');
});

t.test('a refusal counted (in this process or the one before) is forgotten with the ack', async (t) => {
  const { s, file, ran, dir } = spoolIn(t);
  s.finish(ret('1'));
  s.finish(ret('2'));
  t.equal(s.refused('1', 'ret'), 1);
  ran.length = 0;
  s.ack('1');
  await nextTurn();
  t.same(ran, ['BEGIN', 'DELETE FROM spool', 'DELETE FROM refusals', 'COMMIT'], 'the refusal goes with its return');
  t.same(rows(file, 'SELECT jid FROM refusals'), []);
  t.equal(s.refused('2', 'ret'), 1);
  s.close();
  // a new process finds the refusal in the file
  const again = spoolIn(t, dir);
  again.ran.length = 0;
  again.s.ack('2');
  t.equal(again.s.size(), 0);
  t.same(again.ran.slice(0, 4), ['BEGIN', 'DELETE FROM spool', 'DELETE FROM refusals', 'COMMIT']);
  t.same(rows(file, 'SELECT jid FROM refusals'), [], 'forgotten after the restart too');
});

t.test('a pure return held: no statement to hold or ack it; a close writes the unacked ones to the file', async (t) => {
  const { s, file, ran, dir } = spoolIn(t);
  ran.length = 0;
  t.same(
    s.hold('1', 'at-1', () => ret('1')),
    ret('1'),
  );
  s.hold('2', 'at-2', () => ret('2'));
  s.hold('3', 'at-3', () => ret('3'));
  s.ack('2');
  await nextTurn();
  t.same(ran, [], 'no statement');
  t.equal(s.size(), 2, 'two unacked');
  t.same(rows(file, 'SELECT jid FROM spool'), [], 'none in the file');
  s.close();
  t.same(rows(file, 'SELECT jid FROM spool ORDER BY jid'), [{ jid: '1' }, { jid: '3' }], 'the unacked ones written by the close');
  const again = spoolIn(t, dir);
  t.same(
    again.s.pending().map((r) => r.jid),
    ['1', '3'],
    'a restarted agent resends them',
  );
});

t.test('a held return the master refuses for good is quarantined or dropped like a spooled one', async (t) => {
  const { s, file } = spoolIn(t);
  s.hold('1', 'at-1', () => ret('1'));
  s.hold('2', 'at-2', () => ret('2'));
  const q = s.quarantine('1', 'ret', 'test');
  t.match(rows(file, 'SELECT jid FROM spool'), [], 'not left in the file');
  t.match(JSON.parse(readFileSync(q, 'utf8')), { jid: '1', kind: 'ret', items: [JSON.stringify(ret('1'))] });
  t.same(s.drop('2'), { ret: true, states: 0 });
  t.equal(s.size(), 0);
});
