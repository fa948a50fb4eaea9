import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ResultSpool } from '../src/spool.js';

/**
 * The minion's spool on a real spool.db in a temp dir: what survives a restart, what an ack
 * removes, jobs interrupted by a crash, refusal counts and quarantine files.
 */

function open(t: Test) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-spool-'));
  const file = path.join(dir, 'spool.db');
  const spools: ResultSpool[] = [];
  const reopen = () => {
    spools.at(-1)?.close();
    const s = new ResultSpool(file);
    spools.push(s);
    return s;
  };
  t.teardown(() => {
    try {
      spools.at(-1)?.close();
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, file, spool: reopen(), reopen };
}

const ret = (jid: string, extra: Record<string, unknown> = {}) => ({ jid, fun: 'test.ping', success: true, retcode: 0, return: true, ...extra });
const item = (run_num: number) => ({ run_num, tag: `test_|-s${run_num}_|-s${run_num}_|-nop`, ret: { result: true, comment: '', changes: {} } });
const raw = (s: ResultSpool) => (s as unknown as { db: { prepare(q: string): { run(...a: unknown[]): void; all(...a: unknown[]): unknown[] } } }).db;

t.test('returns stay until acknowledged, across a restart, in jid order', async (t) => {
  const { reopen } = open(t);
  let s = reopen();
  s.put(ret('2'));
  s.put(ret('1'));
  s.put(ret('1', { return: 'again' }));
  s = reopen();
  t.equal(s.size(), 2, 'one row per job: a second put replaces the first');
  t.same(
    s.pending().map((r) => [r.jid, r.return]),
    [
      ['1', 'again'],
      ['2', true],
    ],
  );
  t.same(s.pendingOf('2'), ret('2'));
  t.equal(s.pendingOf('3'), undefined);
  s.ack('1');
  t.same(
    s.pending().map((r) => r.jid),
    ['2'],
  );
});

t.test('a job running when the minion died becomes a return once, unless it finished', async (t) => {
  const { reopen } = open(t);
  let s = reopen();
  s.begin('10', 'state.apply', 'at-10');
  s.begin('11', 'cmd.run', 'at-11');
  s.begin('12', 'test.ping', 'at-12');
  s.finish(ret('12'));
  s.put(ret('11', { return: 'spooled before the crash' }));
  s = reopen();
  const seen: unknown[] = [];
  const made = s.recoverInterrupted((job) => {
    seen.push(job);
    return ret(job.jid, { fun: job.fun, success: false, return: `interrupted ${job.started}` });
  });
  t.same(seen, [{ jid: '10', fun: 'state.apply', started: 'at-10' }], 'only the job with neither a return nor a finish');
  t.same(
    made.map((r) => r.jid),
    ['10'],
  );
  t.same(
    s.pending().map((r) => [r.jid, r.return]),
    [
      ['10', 'interrupted at-10'],
      ['11', 'spooled before the crash'],
      ['12', true],
    ],
  );
  t.same(
    s.recoverInterrupted(() => {
      throw new Error('not again');
    }),
    [],
    'forgotten once recovered',
  );
});

t.test('a jid is seen once; seen jids older than a week are forgotten at start', async (t) => {
  const { reopen } = open(t);
  let s = reopen();
  t.equal(s.markSeen('a'), true);
  t.equal(s.markSeen('a'), false);
  raw(s)
    .prepare('INSERT INTO seen (jid, at) VALUES (?, ?)')
    .run('old', new Date(Date.now() - 8 * 86400_000).toISOString());
  raw(s)
    .prepare('INSERT INTO seen (jid, at) VALUES (?, ?)')
    .run('recent', new Date(Date.now() - 6 * 86400_000).toISOString());
  s = reopen();
  t.equal(s.markSeen('old'), true, 'older than 7 days: forgotten');
  t.equal(s.markSeen('recent'), false, '6 days: remembered');
  t.equal(s.markSeen('a'), false);
});

t.test('state results: grouped by job in run order, acknowledged one by one, dropped with their job', async (t) => {
  const { reopen } = open(t);
  const s = reopen();
  s.putStates('2', 'state.apply', [item(1), item(0)]);
  s.putStates('1', 'state.sls', [item(5)]);
  t.same(s.pendingStates(), [
    { jid: '1', fun: 'state.sls', results: [item(5)] },
    { jid: '2', fun: 'state.apply', results: [item(0), item(1)] },
  ]);
  t.same(s.pendingStates(undefined, '2'), [{ jid: '2', fun: 'state.apply', results: [item(0), item(1)] }]);
  s.ackStates('2', [0]);
  t.equal(s.stateSize(), 2);
  s.put(ret('2'));
  t.same(s.drop('2'), { ret: true, states: 1 });
  t.same(s.drop('2'), { ret: false, states: 0 });
  t.equal(s.stateSize(), 1);
  t.equal(s.size(), 0);
});

t.test('rows that are not results of their job go to bad, the others are read', async (t) => {
  const { reopen } = open(t);
  const s = reopen();
  const put = raw(s).prepare('INSERT INTO spool (jid, payload, created_at) VALUES (?, ?, ?)');
  put.run('1', JSON.stringify(ret('1')), 'x');
  put.run('2', '[1]', 'x');
  put.run('3', 'null', 'x');
  put.run('4', JSON.stringify(ret('other')), 'x');
  put.run('5', JSON.stringify({ jid: '5', fun: 7 }), 'x');
  put.run('6', '{', 'x');
  put.run('7', '"text"', 'x');
  const bad: string[] = [];
  t.same(
    s.pending((jid, why) => bad.push(`${jid}: ${why}`)).map((r) => r.jid),
    ['1'],
  );
  t.same(bad.slice(0, 4), [
    '2: not a spooled result of this job',
    '3: not a spooled result of this job',
    '4: not a spooled result of this job',
    '5: not a spooled result of this job',
  ]);
  t.match(bad[4], /^6: not JSON: /);
  t.equal(bad[5], '7: not a spooled result of this job');
  t.same(s.pending().length, 1, 'without bad: skipped quietly');
  const st = raw(s).prepare('INSERT INTO states (jid, run_num, fun, payload) VALUES (?, ?, ?, ?)');
  st.run('9', 0, 'f', JSON.stringify(item(0)));
  st.run('9', 1, 'f', JSON.stringify({ run_num: 1, tag: 't', ret: null }));
  st.run('9', 2, 'f', JSON.stringify({ run_num: 2, tag: 5, ret: {} }));
  const badStates: unknown[] = [];
  t.same(
    s.pendingStates((jid, why, n) => badStates.push([jid, why, n])),
    [{ jid: '9', fun: 'f', results: [item(0)] }],
  );
  t.same(badStates, [
    ['9', 'not a spooled result of this job', 1],
    ['9', 'not a spooled result of this job', 2],
  ]);
});

t.test('refusals are counted per job and kind, reset by an ack, forgotten with their job at start', async (t) => {
  const { reopen } = open(t);
  let s = reopen();
  s.put(ret('1'));
  s.putStates('2', 'f', [item(0)]);
  t.equal(s.refused('1', 'ret'), 1);
  t.equal(s.refused('1', 'ret'), 2);
  t.equal(s.refused('1', 'state_results'), 1, 'another kind counts apart');
  t.equal(s.refused('2', 'state_results'), 1);
  s.ack('1');
  t.equal(s.refused('1', 'ret'), 1, 'an ack starts the count over');
  t.equal(s.refused('1', 'state_results'), 2, 'of its return only');
  s = reopen();
  t.equal(s.refused('2', 'state_results'), 2, 'a job still spooled keeps its count across a restart');
  t.equal(s.refused('1', 'ret'), 1, 'a job no longer spooled starts over');
});

t.test('quarantine moves a return or state results to a private file with the reason', async (t) => {
  const { dir, reopen } = open(t);
  const s = reopen();
  s.put(ret('job/1'));
  s.putStates('job/1', 'f', [item(0), item(1), item(2)]);
  s.refused('job/1', 'ret');
  const file = s.quarantine('job/1', 'ret', 'too big');
  t.equal(path.dirname(file), path.join(dir, 'spool-quarantine'));
  t.match(path.basename(file), /^job_1-ret-\d{4}-\d\d-\d\dT\d{9}Z\.json$/);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  const q = JSON.parse(readFileSync(file, 'utf8')) as { jid: string; kind: string; reason: string; quarantined_at: string; items: string[] };
  t.match(q, { jid: 'job/1', kind: 'ret', reason: 'too big' });
  t.same(JSON.parse(q.items[0]!), ret('job/1'));
  t.equal(s.size(), 0);
  t.equal(s.stateSize(), 3, 'the state results stay');
  t.equal(s.refused('job/1', 'ret'), 1, 'its refusal count went with it');
  const f2 = s.quarantine('job/1', 'state_results', 'bad item', [0, 2]);
  const q2 = JSON.parse(readFileSync(f2, 'utf8')) as { items: string[] };
  t.same(
    q2.items.map((p) => (JSON.parse(p) as { run_num: number }).run_num),
    [0, 2],
  );
  t.same(s.pendingStates()[0]!.results, [item(1)], 'only those run numbers moved');
  s.quarantine('job/1', 'state_results', 'the rest');
  t.equal(s.stateSize(), 0);
  t.ok(readdirSync(path.join(dir, 'spool-quarantine')).length >= 2);
  t.match(path.basename(s.quarantine('x'.repeat(100), 'ret', 'long')), new RegExp(`^${'x'.repeat(64)}-ret-`), 'the name keeps 64 characters of the jid');
});
