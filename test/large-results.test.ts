import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import type { BrineProcess } from './helpers/proc.js';
import { authSig, keyPair, RawClient } from './helpers/raw-client.js';

/**
 * Large results and large compiles (issue 20, item 4). A 5 MB `cmd.run` output is trimmed to
 * fit a frame (result and comment kept, the output cut with a marker) and stored; a
 * 30,000-state highstate reaches its minion in chunks and every result is stored; spool items
 * the master refuses for good are quarantined, an oversized one is trimmed and sent. None of
 * them makes a minion reconnect, and another minion's highstate still completes after each.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-large-results-'));
const states = path.join(dir, 'states');
const BIG = 30_000;
writeTree(states, {
  'top.sls': "base:\n  '*':\n    - fine\n",
  'fine.sls': 'fine:\n  test.succeed_without_changes\n',
  'loud.sls': "before:\n  test.succeed_without_changes\n\nloud:\n  cmd.run:\n    - name: head -c 5000000 /dev/zero | tr '\\0' a\n\nafter:\n  test.nop\n",
  'many.sls': Array.from({ length: BIG }, (_, i) => `s${i}:\n  ${i % 2 ? 'test.nop' : 'test.succeed_without_changes'}\n`).join(''),
});

const cluster = new Cluster({
  minions: ['big1', 'other1'],
  master: { file_roots: { base: [states] }, timeout: 60 },
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

type Row = { run_num: number; tag: string; result: boolean | null; comment: string; changes: Record<string, unknown> };

/** Sessions the master authenticated for `id` (each reconnect is one more). */
function sessions(id: string): number {
  return cluster.master.lines.filter((l) => l.msg === 'minion authenticated' && l.minion === id).length;
}

const minion = (id: string): BrineProcess => cluster.minions.get(id)!;

async function otherStillApplies(t: Test): Promise<void> {
  const r = await cluster.run('other1', 'state.apply', [], { timeout: 60 });
  t.equal(r.returns.other1?.retcode, 0, "another minion's highstate still completes");
}

t.test('a 5 MB cmd.run output is trimmed with a marker and stored, without a reconnect', async (t) => {
  const before = sessions('big1');
  const t0 = performance.now();
  const r = await cluster.run('big1', 'state.sls', ['loud'], { timeout: 60 });
  t.comment(`5 MB state output: return after ${Math.round(performance.now() - t0)} ms, ${sessions('big1') - before} reconnects`);
  const ret = r.returns.big1;
  t.ok(ret, 'the return is stored');
  t.equal(ret?.retcode, 0);
  const running = ret?.return as Record<string, { result: boolean; comment: string; changes: { stdout?: string } }>;
  const loud = running?.["cmd_|-loud_|-head -c 5000000 /dev/zero | tr '\\0' a_|-run"];
  t.equal(loud?.result, true, 'the result is kept');
  t.match(loud?.comment, /Command ".*" run/, 'the comment is kept');
  t.ok((loud?.changes.stdout?.length ?? Infinity) < 1_100_000, 'the output is cut');
  t.match(loud?.changes.stdout, /^a+/, 'what is kept is the start of the output');
  t.match(loud?.changes.stdout, /trimmed/, 'with a marker');
  const { states: rows } = await cluster.client.get<{ states: Row[] }>(`/v1/jobs/${r.jid}/states`);
  t.equal(rows.length, 3, 'every state result is stored');
  const row = rows.find((x) => x.tag.startsWith('cmd_|-loud'));
  t.equal(row?.result, true);
  t.match(row?.comment, /Command ".*" run/);
  t.match(String(row?.changes.stdout), /trimmed/, 'the stored result carries the marker');

  // a plain cmd.run job: its return is the output itself
  const plain = await cluster.run('big1', 'cmd.run', ["head -c 5000000 /dev/zero | tr '\\0' b"], { timeout: 60 });
  t.equal(plain.returns.big1?.retcode, 0, 'the return of cmd.run is stored');
  t.match(String(plain.returns.big1?.return), /^b+[^]*trimmed/, 'cut with a marker');
  t.equal(sessions('big1'), before, 'the minion never reconnected');
  await otherStillApplies(t);
});

t.test('a 30,000-state highstate reaches the minion and every result is stored', async (t) => {
  const before = sessions('big1');
  const t0 = performance.now();
  const r = await cluster.run('big1', 'state.sls', ['many'], { timeout: 120 });
  t.comment(`${BIG}-state run: return after ${Math.round(performance.now() - t0)} ms, ${sessions('big1') - before} reconnects`);
  t.equal(r.returns.big1?.retcode, 0, 'the run returns and succeeds');
  const { states: rows } = await cluster.client.get<{ states: Row[] }>(`/v1/jobs/${r.jid}/states?minion=big1`);
  t.equal(rows.length, BIG, 'every state result is stored');
  t.equal(new Set(rows.map((x) => x.run_num)).size, BIG, 'each once');
  t.equal(sessions('big1'), before, 'the minion never reconnected');
  await otherStillApplies(t);
});

t.test('spool items the master refuses are quarantined; an oversized one is trimmed and sent', async (t) => {
  // three jobs of big1 published while it is stopped: their returns are what we put in its spool
  await minion('big1').kill('SIGTERM');
  const jobs = [];
  for (let i = 0; i < 3; i++) jobs.push((await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'big1', fun: 'test.ping' })).jid);
  const [poisoned, oversized, garbled] = jobs as [string, string, string];
  const data = path.join(cluster.dir, 'minion-big1');
  const db = new Database(path.join(data, 'spool.db'));
  const now = new Date().toISOString();
  const put = db.prepare('INSERT OR REPLACE INTO spool (jid, payload, created_at) VALUES (?, ?, ?)');
  const ret = (jid: string, extra: Record<string, unknown>) =>
    JSON.stringify({ jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: now, finished: now, ...extra });
  // a field the protocol refuses: resending it can never succeed
  put.run(poisoned, ret(poisoned, { retcode: 'zero' }), now);
  // over 4 MiB: the master's WebSocket closed the connection on it, and the minion looped
  put.run(oversized, ret(oversized, { return: 'c'.repeat(6_000_000) }), now);
  put.run(garbled, '{"jid": "' + garbled + '", "fun": ', now);
  db.close();

  const before = sessions('big1');
  const since = cluster.master.lines.length;
  const p = cluster.startMinion('big1');
  await p.waitEvent('minion_ready', 30_000);
  const q1 = await p.waitFor((l) => l.event === 'spool_quarantined' && l.jid === poisoned, 'poisoned item quarantined', 30_000);
  const q2 = await p.waitFor((l) => l.event === 'spool_quarantined' && l.jid === garbled, 'garbled item quarantined', 30_000);
  t.equal(q1.code, 'BRINE_ERR_MINION_SPOOL_QUARANTINED');
  t.match(String(q1.msg), poisoned, 'the log line names the jid');
  t.equal(q2.code, 'BRINE_ERR_MINION_SPOOL_QUARANTINED');
  const aside = path.join(data, 'spool-quarantine');
  t.ok(existsSync(aside), 'quarantined items are moved aside on disk');
  const files = readdirSync(aside);
  t.ok(
    files.some((f) => f.includes(poisoned) && readFileSync(path.join(aside, f), 'utf8').includes('zero')),
    'the poisoned item is kept in its file',
  );
  t.ok(
    files.some((f) => f.includes(garbled)),
    'the garbled item too',
  );
  await p.waitFor((l) => l.event === 'ret_acked' && l.jid === oversized, 'oversized return acked', 30_000);
  const stored = await cluster.client.get<{ returns: Record<string, { return: unknown }> }>(`/v1/jobs/${oversized}`);
  t.match(String(stored.returns.big1?.return), /^c+[^]*trimmed/, 'the oversized return is stored, trimmed');
  // the refusals did not cost the session: one authentication since the restart
  t.equal(sessions('big1'), before + 1, 'no reconnect loop');
  t.notOk(
    cluster.master.lines.slice(since).some((l) => l.msg === 'minion disconnected' && l.minion === 'big1'),
    'the master kept the connection',
  );
  // nothing is left to resend
  const r = await cluster.run('big1', 'test.ping', [], { timeout: 30 });
  t.equal(r.returns.big1?.return, true, 'the minion still works');
  await otherStillApplies(t);
});

t.test('the master refuses an oversized result naming its job, and keeps the connection', async (t) => {
  const kp = keyPair();
  const c = new RawClient(cluster.port);
  t.teardown(() => c.ws.terminate());
  await c.open();
  c.send({ v: 1, type: 'hello', minion: 'raw1', pub: kp.pub, version: 'x' });
  const ch = await c.next('challenge');
  c.send({ v: 1, type: 'auth', sig: authSig(kp.priv, 'raw1', ch.nonce as string, c.binding()) });
  const welcome = await c.next('welcome');
  t.equal(welcome.max_frame_bytes, 1024 * 1024, 'the welcome tells the frame limit');
  const jid = '20250101000000000042';
  const now = new Date().toISOString();
  c.send({ v: 1, type: 'ret', jid, fun: 'cmd.run', success: true, retcode: 0, return: 'd'.repeat(2_000_000), started: now, finished: now });
  const err = await c.next('error');
  t.match(err, { code: 'BRINE_ERR_PROTO_FRAME_TOO_LARGE', jid, refused: 'ret', limit: 1024 * 1024 }, 'the refusal names the job');
  c.send({ v: 1, type: 'ping', id: 'p1' });
  t.match(await c.next('pong'), { id: 'p1' }, 'the session goes on');
  t.notOk(c.closed);
});
