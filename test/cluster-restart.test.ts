import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { ResultSpool } from '@brine/minion';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';

const cluster = new Cluster({ minions: ['m1', 'm2'] });
t.before(() => cluster.start());
t.teardown(() => cluster.close());

function storedReturns(jid: string): number {
  const db = new Database(path.join(cluster.dir, 'master', 'master.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM returns WHERE jid = ?').get(jid) as { n: number }).n;
  } finally {
    db.close();
  }
}

async function activeOn(minion: string, jid: string): Promise<void> {
  await until(async () => {
    const { active } = await cluster.client.get<{ active: Array<{ jid: string; running: string[] }> }>('/v1/jobs/active');
    return active.some((a) => a.jid === jid && a.running.includes(minion)) ? true : undefined;
  }, `job ${jid} running on ${minion}`);
}

t.test('a result produced while the master is down (SIGKILL) is stored exactly once after restart', async (t) => {
  const ping = await cluster.run('*', 'test.ping');
  const go = path.join(cluster.dir, 'go');
  const job = await cluster.client.post<{ jid: string }>('/v1/jobs', {
    tgt: 'm1',
    fun: 'cmd.run',
    arg: [`while [ ! -f ${go} ]; do sleep 0.05; done; echo finished`],
  });
  await activeOn('m1', job.jid);
  const m1 = cluster.minions.get('m1')!;
  const mark = m1.lines.length;
  await cluster.master.kill('SIGKILL');
  writeFileSync(go, '');
  const done = await m1.waitFor((l) => l.event === 'job_done' && l.jid === job.jid, 'job_done', 15_000, mark);
  t.equal(done.sent, false, 'the master was down when the job finished');
  const mark2 = m1.lines.length;
  await cluster.startMaster();
  const ready = await m1.waitFor((l) => l.event === 'minion_ready', 'minion_ready', 15_000, mark2);
  t.equal(ready.resent, 1, 'the spooled return is sent again');
  const report = await until(async () => {
    const r = await cluster.client.get<{ returns: Record<string, { return: unknown }> }>(`/v1/jobs/${job.jid}`);
    return r.returns.m1 ? r : undefined;
  }, 'the return after restart');
  t.equal(report.returns.m1!.return, 'finished');
  t.equal(storedReturns(job.jid), 1);
  // jobs from before the crash are still there
  const list = await cluster.brine(['jobs', 'list', '--out', 'json']);
  const jids = (JSON.parse(list.stdout) as Array<{ jid: string }>).map((j) => j.jid);
  t.ok(jids.includes(ping.jid) && jids.includes(job.jid), 'both jobs survive the restart');
  t.equal(storedReturns(ping.jid), 2);

  // once acknowledged the return leaves the spool: another restart resends nothing
  await m1.waitFor((l) => l.event === 'ret_acked' && l.jid === job.jid, 'ret_acked', 15_000, mark2);
  // m2 reconnects on its own backoff: wait for it before counting sessions
  await cluster.waitMinionsKnown(['m1', 'm2']);
  const stats = await cluster.client.get<{ authenticated: number }>('/v1/stats');
  t.equal(stats.authenticated, 2);
  const mark3 = m1.lines.length;
  await cluster.master.kill('SIGTERM');
  await cluster.startMaster();
  const ready2 = await m1.waitFor((l) => l.event === 'minion_ready', 'minion_ready', 15_000, mark3);
  t.equal(ready2.resent, 0);
  t.equal(storedReturns(job.jid), 1);
});

t.test('a minion killed mid-job: listed as not returned, the others keep being served', async (t) => {
  await cluster.waitMinionsKnown(['m1', 'm2']);
  const job = await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'm2', fun: 'cmd.run', arg: ['sleep 30'] });
  await activeOn('m2', job.jid);
  // killed once it runs the job (and has recorded it), not while the job is on the wire
  await cluster.minions.get('m2')!.waitFor((l) => l.event === 'job_started' && l.jid === job.jid, 'job_started');
  await cluster.minions.get('m2')!.kill('SIGKILL');
  const report = await cluster.client.get<{ missing: Array<{ minion: string; reason: string }> }>(`/v1/jobs/${job.jid}?wait=0.2`);
  t.same(report.missing, [{ minion: 'm2', reason: 'no response' }]);
  const r = await cluster.run('m1', 'test.ping');
  t.same(r.returns.m1?.return, true);
  const down = await cluster.run('*', 'test.ping', [], { timeout: 0.5 });
  t.same(down.missing, [{ minion: 'm2', reason: 'not connected' }]);
  // it comes back with the same key, returns the job it was killed in as failed, and answers again
  const again = cluster.startMinion('m2');
  const interrupted = await again.waitEvent('job_interrupted');
  t.equal(interrupted.jid, job.jid);
  await again.waitFor((l) => l.event === 'ret_acked' && l.jid === job.jid, 'ret_acked');
  await cluster.waitMinionsKnown(['m2']);
  const report2 = await cluster.client.get<{ returns: Record<string, { success: boolean; retcode: number; return: unknown }> }>(`/v1/jobs/${job.jid}`);
  t.match(report2.returns.m2, { success: false, retcode: 1 });
  t.match(String(report2.returns.m2?.return), /^job \d{20} \(cmd\.run, started .+\) was interrupted: the minion stopped while running it/);
  t.equal(storedReturns(job.jid), 1);
  const back = await cluster.run('m2', 'test.ping');
  t.same(back.returns.m2?.return, true);
});

t.test('results spooled for a job the master does not know are refused for good and dropped', async (t) => {
  const m2 = cluster.minions.get('m2')!;
  await m2.kill('SIGTERM');
  const unknown = '20200101000000000001';
  const spool = new ResultSpool(path.join(cluster.dir, 'minion-m2', 'spool.db'));
  spool.put({ jid: unknown, fun: 'test.ping', success: true, retcode: 0, return: true, started: '', finished: '' });
  spool.putStates(unknown, 'state.apply', [{ run_num: 0, tag: 'test_|-a_|-a_|-nop', ret: { result: true } }]);
  spool.close();
  const back = cluster.startMinion('m2');
  // the state results go first: their refusal drops the return with them
  const dropped = await back.waitFor((l) => l.event === 'spool_dropped' && l.jid === unknown, 'spool_dropped');
  t.match(dropped, { code: 'BRINE_ERR_MASTER_UNKNOWN_JOB', ret: true, states: 1 });
  await cluster.waitMinionsKnown(['m2']);
  // after a reconnect nothing is sent again
  await back.kill('SIGTERM');
  const check = new ResultSpool(path.join(cluster.dir, 'minion-m2', 'spool.db'));
  t.equal(check.size(), 0);
  t.equal(check.stateSize(), 0);
  check.close();
  const third = cluster.startMinion('m2');
  const ready = await third.waitEvent('minion_ready');
  t.equal(ready.resent, 0);
  t.equal(ready.resent_states, 0);
});

t.test('a second master on the same data_dir is refused; a SIGKILLed one does not block its restart', async (t) => {
  const second = await cluster.brine(['master']);
  t.not(second.code, 0);
  t.match(second.stderr, /BRINE_ERR_MASTER_LOCKED: data_dir lock .*master-lock\.db: another master already uses the data_dir/);
  await cluster.master.kill('SIGKILL');
  await cluster.startMaster();
  await cluster.waitMinionsKnown(['m1']);
  const r = await cluster.run('m1', 'test.ping');
  t.same(r.returns.m1?.return, true);
});
