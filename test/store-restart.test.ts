import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  await pg.restart();
  const failed = await c.master.waitEvent('store_write_failed', 10_000).catch(() => undefined);
  t.comment(failed ? 'a write failed while the server was down, and was retried' : 'no write fell into the restart window');
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
  const dupes = (
    await pg.psql(`SELECT count(*) FROM (SELECT run_num FROM state_results WHERE jid = '${jid}' GROUP BY run_num HAVING count(*) > 1) d`, 'brine')
  ).trim();
  t.equal(dupes, '0', 'none twice');
  t.equal((await pg.psql(`SELECT count(*) FROM returns WHERE jid = '${jid}'`, 'brine')).trim(), '1', 'one return');
  // the master is still whole: a new job runs and is stored
  const after = await c.run('m1', 'test.ping');
  t.same(after.returns.m1?.return, true);
});
