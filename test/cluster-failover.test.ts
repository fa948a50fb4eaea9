import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { startPostgres } from './support/postgres.js';

/**
 * Issue 12's failover check, on the real thing: two masters on one PostgreSQL store, three
 * minions listing both. Master A is SIGKILLed in the middle of a 3 x 200-state highstate; the
 * minions move to B with their spools, and every state result is stored exactly once (the rows
 * are counted).
 */
const STATES = 200;
const GATE = 100;

t.test('SIGKILL one master mid-highstate: its minions move to the other and nothing is lost or doubled', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  await pg.createDatabase('brine');
  const tree = mkdtempSync(path.join(os.tmpdir(), 'brine-cfail-'));
  t.teardown(() => rmSync(tree, { recursive: true, force: true }));
  const gate = path.join(tree, 'go');
  let sls = '';
  for (let i = 0; i < STATES; i++) {
    const id = `s${String(i).padStart(3, '0')}`;
    // every minion stops at state 100 until the gate file exists: A dies while all three wait there
    if (i === GATE) sls += `${id}:\n  cmd.run:\n    - name: 'while [ ! -f ${gate} ]; do sleep 0.05; done'\n`;
    else sls += `${id}:\n  test.succeed_with_changes: []\n`;
  }
  writeFileSync(path.join(tree, 'top.sls'), "base:\n  '*':\n    - many\n");
  writeFileSync(path.join(tree, 'many.sls'), sls);
  const common = { store: pg.url('brine'), store_password_file: pg.passwordFile, file_roots: { base: [tree] }, timeout: 60 };
  const a = new Cluster({ master: { ...common, cluster_id: 'a' } });
  t.teardown(() => a.close());
  await a.startMaster();
  const pki = path.join(a.dir, 'master', 'pki');
  const b = new Cluster({ master: { ...common, cluster_id: 'b', tls_cert: path.join(pki, 'master.crt'), tls_key: path.join(pki, 'master.key') } });
  t.teardown(() => b.close());
  await b.startMaster();
  const list = [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`];
  const ids = ['f1', 'f2', 'f3'];
  await Promise.all(ids.map((id) => a.startMinion(id, { master: list }).waitEvent('minion_ready')));
  await a.waitMinionsKnown(ids);

  const { jid } = await a.client.post<{ jid: string }>('/v1/jobs', { tgt: 'f*', fun: 'state.apply', wait: false });
  const rows = async () => Number((await pg.psql(`SELECT count(*) FROM state_results WHERE jid = '${jid}'`, 'brine')).trim());
  await until(async () => ((await rows()) >= GATE * ids.length ? true : undefined), 'all three at the gate', 60_000);
  await a.master.kill('SIGKILL');
  await Promise.all(ids.map((id) => a.minions.get(id)!.waitFor((l) => l.event === 'master_failover', `${id} moves`, 30_000)));
  writeFileSync(gate, '');
  await until(
    async () => (Number((await pg.psql(`SELECT count(*) FROM returns WHERE jid = '${jid}'`, 'brine')).trim()) === ids.length ? true : undefined),
    'three returns stored',
    60_000,
  );
  t.equal(await rows(), STATES * ids.length, 'every state result of every minion is stored');
  const perMinion = (
    await pg.psql(`SELECT minion, count(*), count(DISTINCT run_num) FROM state_results WHERE jid = '${jid}' GROUP BY minion ORDER BY minion`, 'brine')
  ).trim();
  t.equal(perMinion, ids.map((id) => `${id}|${STATES}|${STATES}`).join('\n'), 'each exactly once');
  const report = await b.client.get<{ returns: Record<string, { success: boolean }> }>(`/v1/jobs/${jid}`);
  t.same(
    ids.map((id) => report.returns[id]?.success),
    [true, true, true],
    'B answers for the job A published',
  );
  await b.waitMinionsKnown(ids);
  const ping = await b.run('f*', 'test.ping');
  t.same(Object.keys(ping.returns).sort(), ids, 'the minions run jobs from B');
});
