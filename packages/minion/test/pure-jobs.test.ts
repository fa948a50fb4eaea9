import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { createCommandRunner, createLogger } from '@brine/core';
import { execRegistry } from '@brine/exec';
import { defaultRegistry } from '@brine/states';
import { loadMinionConfig } from '../src/config.js';
import { JobRunner } from '../src/job-runner.js';
import { ResultSpool } from '../src/spool.js';
import { SpoolSender } from '../src/spool-sender.js';

/**
 * A fleet's ping cost each minion its spool commits: a pure function (test.ping) runs in its
 * admission's turn and its return, recomputable, is held in memory until acked: no statement,
 * no commit. Beyond the held bound it is spooled, received and returned in one commit.
 * Statements are those SQLite runs; commits and pages are counted in spool.db's write-ahead log.
 */

/** Commit frames and all frames in a WAL file (a frame header's second word is set on commits). */
function walFrames(wal: string): { commits: number; pages: number } {
  const b = readFileSync(wal);
  const page = b.readUInt32BE(8);
  let commits = 0;
  let pages = 0;
  for (let at = 32; at + 24 + page <= b.length; at += 24 + page) {
    pages++;
    if (b.readUInt32BE(at + 4) !== 0) commits++;
  }
  return { commits, pages };
}

interface Sent {
  type: string;
  jid?: string;
  success?: boolean;
  retcode?: number;
  return?: unknown;
}

/** A pure function of the test's own that keeps every context it is handed. */
const seenContexts: unknown[] = [];
const exec = execRegistry().register({
  name: 'test.pure_probe',
  doc: 'keeps its context',
  params: [],
  pure: true,
  run: (_a, ctx) => {
    seenContexts.push(ctx);
    return { return: true };
  },
});

function runnerIn(t: Test, heldMax?: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-pure-jobs-'));
  const file = path.join(dir, 'spool.db');
  const ran: string[] = [];
  const spool = new ResultSpool(file, { onStatement: (sql) => ran.push(sql), ...(heldMax === undefined ? {} : { heldMax }) });
  t.teardown(() => {
    try {
      spool.close();
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  const sent: Sent[] = [];
  const returned: Sent[] = [];
  let onSent: () => void = () => undefined;
  const log = createLogger({ level: 'silent' });
  const runner = new JobRunner({
    config: loadMinionConfig(undefined, { id: 'pure', data_dir: dir }),
    log,
    spool,
    exec,
    grains: { id: 'pure' },
    version: 'test',
    cmd: createCommandRunner(),
    registry: defaultRegistry(),
    sender: new SpoolSender({
      spool,
      log,
      sendFrame: (text) => {
        sent.push(JSON.parse(text) as Sent);
        onSent();
        return true;
      },
      connected: () => true,
      limits: () => ({ frame: 1024 * 1024, event: 1024 * 1024 - 4096 }),
      emit: () => undefined,
    }),
    connected: () => true,
    request: () => Promise.reject(new Error('no master here')),
    emit: (event, ret) => event === 'return' && returned.push(ret as Sent),
  });
  const job = (jid: string, fun: string, arg: unknown[] = []) => runner.onJob({ v: 1, type: 'job', jid, fun, arg, kwarg: {} } as never);
  const nextSend = () => new Promise<void>((resolve) => (onSent = resolve));
  return { spool, file, sent, returned, job, nextSend, ran };
}

/** Rows of a spool table, read by another connection (what a restarted minion would find). */
function rows(file: string, table: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

t.test('test.ping: its return sent in the same turn and held in memory: no SQLite statement', async (t) => {
  const { file, sent, returned, job, spool, ran } = runnerIn(t);
  const before = walFrames(`${file}-wal`);
  ran.length = 0;
  job('20260101000000000001', 'test.ping');
  t.same(
    sent.map((m) => [m.type, m.jid, m.return]),
    [['ret', '20260101000000000001', true]],
    'the return went out before onJob returned',
  );
  t.same(ran, [], 'no statement');
  t.same(walFrames(`${file}-wal`), before, 'nothing written');
  t.equal(spool.size(), 1, 'held until acked');
  t.equal(rows(file, 'spool') + rows(file, 'seen') + rows(file, 'active'), 0, 'neither spooled, nor marked received or running');
  t.same(
    returned.map((r) => [r.jid, r.success, r.retcode]),
    [['20260101000000000001', true, 0]],
    "the agent's 'return' event",
  );
  // the ack and the next ping: still no statement
  ran.length = 0;
  spool.ack('20260101000000000001');
  job('20260101000000000002', 'test.ping');
  await nextTurn();
  t.same(ran, [], 'the ack clears it from memory');
  t.same(walFrames(`${file}-wal`), before, 'nothing written');
  t.equal(spool.size(), 1, 'the new one held');
});

t.test('beyond the held bound a pure return is spooled: received and returned in one commit', async (t) => {
  const { file, sent, job, spool } = runnerIn(t, 2);
  job('20260101000000000021', 'test.ping');
  job('20260101000000000022', 'test.ping');
  t.equal(rows(file, 'spool'), 0, 'two held');
  const before = walFrames(`${file}-wal`);
  job('20260101000000000023', 'test.ping');
  const after = walFrames(`${file}-wal`);
  t.equal(after.commits - before.commits, 1, 'one commit for the admission and the return');
  // the received mark is one page, the return one (neither table has a separate key index)
  t.equal(after.pages - before.pages, 2, 'two pages written');
  t.equal(rows(file, 'spool'), 1, 'the third spooled');
  t.equal(rows(file, 'seen'), 1, 'and recorded as received');
  t.equal(rows(file, 'active'), 0, 'never as running');
  t.equal(sent.length, 3, 'all three sent');
  t.same(
    spool.pending().map((r) => r.jid),
    ['20260101000000000021', '20260101000000000022', '20260101000000000023'],
    'all three resent after a reconnect, in jid order',
  );
  // an acked held one makes room again
  spool.ack('20260101000000000021');
  job('20260101000000000024', 'test.ping');
  t.equal(rows(file, 'spool'), 1, 'held');
});

t.test('a pure job received twice runs again (the same answer); a bad argument is a failed return as before', async (t) => {
  const { sent, job } = runnerIn(t);
  job('20260101000000000003', 'test.echo', ['hi']);
  job('20260101000000000003', 'test.echo', ['hi']);
  job('20260101000000000004', 'test.ping', ['extra']);
  const rets = sent.filter((m) => m.type === 'ret');
  t.same(
    rets.map((m) => [m.jid, m.return, m.retcode, m.success]),
    [
      ['20260101000000000003', 'hi', 0, true],
      ['20260101000000000003', 'hi', 0, true],
      ['20260101000000000004', rets[2]?.return, 1, false],
    ],
  );
  t.match(rets[2]?.return, /argument/i, 'the binding error is the return');
});

t.test('a function that is not pure is recorded as running before it runs', async (t) => {
  const { file, sent, job, nextSend } = runnerIn(t);
  const before = walFrames(`${file}-wal`);
  const done = nextSend();
  job('20260101000000000005', 'test.version');
  t.equal(sent.length, 0, 'it runs after this turn');
  t.equal(rows(file, 'active'), 1, 'recorded as running');
  await done;
  t.equal(walFrames(`${file}-wal`).commits - before.commits, 2, 'admission, then the return');
  t.equal(rows(file, 'active'), 0);
  t.same(
    sent.map((m) => [m.type, m.return]),
    [['ret', 'test']],
  );
});

t.test('a pure function reads nothing of its context: one is made for all its jobs, not one per job', async (t) => {
  const { sent, job } = runnerIn(t);
  seenContexts.length = 0;
  job('20260101000000000011', 'test.pure_probe');
  job('20260101000000000012', 'test.pure_probe');
  t.same(
    sent.map((m) => [m.jid, m.return]),
    [
      ['20260101000000000011', true],
      ['20260101000000000012', true],
    ],
  );
  t.equal(seenContexts.length, 2);
  t.equal(seenContexts[0], seenContexts[1], 'the same context');
});
