import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
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
  const stats = await cluster.client.get<{ authenticated: number }>('/v1/stats');
  t.equal(stats.authenticated, 2);
  await cluster.waitMinionsKnown(['m1', 'm2']);
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
  await cluster.minions.get('m2')!.kill('SIGKILL');
  const report = await cluster.client.get<{ missing: Array<{ minion: string; reason: string }> }>(`/v1/jobs/${job.jid}?wait=0.2`);
  t.same(report.missing, [{ minion: 'm2', reason: 'no response' }]);
  const r = await cluster.run('m1', 'test.ping');
  t.same(r.returns.m1?.return, true);
  const down = await cluster.run('*', 'test.ping', [], { timeout: 0.5 });
  t.same(down.missing, [{ minion: 'm2', reason: 'not connected' }]);
  // it comes back with the same key and answers again
  await cluster.startMinion('m2').waitEvent('minion_ready');
  await cluster.waitMinionsKnown(['m2']);
  const back = await cluster.run('m2', 'test.ping');
  t.same(back.returns.m2?.return, true);
  t.equal(storedReturns(job.jid), 0);
});
