import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PgStore } from '@brine/master';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { startPostgres } from './support/postgres.js';

/**
 * PostgreSQL restarted in the middle of a highstate: the master's writes fail, are kept and
 * retried; the minion keeps its results spooled until they are acknowledged; once the server is
 * back every state result is stored exactly once (the rows are counted).
 */
t.test('a PostgreSQL restart mid-job loses nothing and stores nothing twice', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  await pg.createDatabase('brine');
  const tree = mkdtempSync(path.join(os.tmpdir(), 'brine-pgrestart-'));
  t.teardown(() => rmSync(tree, { recursive: true, force: true }));
  const N = 200;
  writeFileSync(path.join(tree, 'top.sls'), "base:\n  '*':\n    - slow\n");
  writeFileSync(path.join(tree, 'slow.sls'), `{% for i in range(${N}) %}\nstep-{{ i }}:\n  cmd.run:\n    - name: sleep 0.02\n{% endfor %}\n`);
  const c = new Cluster({
    minions: ['m1'],
    master: { store: pg.url('brine'), store_password_file: pg.passwordFile, file_roots: { base: [tree] }, timeout: 120 },
  });
  t.teardown(() => c.close());
  await c.start();

  const { jid } = await c.client.post<{ jid: string }>('/v1/jobs', { tgt: 'm1', fun: 'state.apply', wait: false });
  const count = async () => Number((await pg.psql(`SELECT count(*) FROM state_results WHERE jid = '${jid}'`, 'brine')).trim());
  await until(async () => ((await count()) >= 10 ? true : undefined), 'the first results stored', 60_000);
  // the server stays down until the master has failed a write (the minion keeps sending results)
  const since = c.master.lines.length;
  await pg.restart(async () => {
    const failed = await c.master.waitEvent('store_write_failed', 30_000, since);
    t.match(failed, { code: 'BRINE_ERR_MASTER_STORE_WRITE' }, 'a write failed while the server was down');
  });
  await until(
    async () => {
      // a master that died on the restart (an unhandled socket error) must fail here, not time out
      if (!c.master.running) throw new Error(`the master exited during the restart:\n${c.master.stderrText.slice(-3000)}`);
      try {
        const r = await c.client.get<{ returns: Record<string, { success: boolean }> }>(`/v1/jobs/${jid}`);
        return r.returns.m1 ? r : undefined;
      } catch {
        return undefined; // the API answers 500 while the store is away
      }
    },
    'the return stored',
    120_000,
  );
  t.equal(await count(), N, 'every state result stored');
  // a result stored but never acknowledged comes again (the minion resends it after a reconnect,
  // to this master or another of the cluster): offered again through a store of its own, it is not stored twice
  const again = await PgStore.open(pg.url('brine'), pg.password);
  t.teardown(() => again.close());
  const first = (await again.stateResultsOf(jid, 'm1')).slice(0, 20);
  await again.insertStateResults(
    jid,
    'm1',
    first.map((r) => ({ run_num: r.run_num, tag: r.tag, ret: { result: r.result, changes: r.changes, comment: 'resent', name: r.name, __id__: r.id } })),
  );
  t.equal(await count(), N, 'the resent results were not stored again');
  t.notOk(
    (await again.stateResultsOf(jid, 'm1')).some((r) => r.comment === 'resent'),
    'the first copy stays',
  );
  const dupes = (
    await pg.psql(`SELECT count(*) FROM (SELECT run_num FROM state_results WHERE jid = '${jid}' GROUP BY run_num HAVING count(*) > 1) d`, 'brine')
  ).trim();
  t.equal(dupes, '0', 'none twice');
  t.equal((await pg.psql(`SELECT count(*) FROM returns WHERE jid = '${jid}'`, 'brine')).trim(), '1', 'one return');
  // the master is still whole: a new job runs and is stored
  const after = await c.run('m1', 'test.ping');
  t.same(after.returns.m1?.return, true);
});
