import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { startPostgres } from './support/postgres.js';

/**
 * From one master on SQLite to PostgreSQL, as an operator does it: stop the master, run
 * `brine store migrate` with its config, point the config at PostgreSQL, start again. Keys, jobs,
 * returns and state results are all there, and the minion reconnects without being re-accepted.
 */
t.test('brine store migrate carries a stopped master into PostgreSQL', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  await pg.createDatabase('brine');
  const c = new Cluster({ minions: ['m1'], autosign: true });
  t.teardown(() => c.close());
  await c.start();
  const before = await c.run('m1', 'state.single', ['test.succeed_with_changes', 'moved']);
  t.ok(before.returns.m1?.success);
  await c.master.kill('SIGTERM');

  const usage = await c.brine(['store', 'migrate', '--to', 'mysql://x/y']);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /BRINE_ERR_CLI_USAGE: --to \(or the config's store\) must be a postgres:\/\/ URL/);

  const url = pg.url('brine');
  const r = await c.brine(['store', 'migrate', '--to', url, '--password-file', pg.passwordFile]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /keys\s+1 read\s+1 written/);
  t.match(r.stdout, /jobs\s+1 read\s+1 written/);
  t.match(r.stdout, /state_results\s+1 read\s+1 written/);
  t.notMatch(r.stdout, pg.password, 'the password is never printed');

  // the same master, now on PostgreSQL (its SQLite file stays as it was)
  c.setMasterOptions({ store: url, store_password_file: pg.passwordFile });
  await c.startMaster();
  const job = await c.client.get<{ returns: Record<string, unknown> }>(`/v1/jobs/${before.jid}`);
  t.same(Object.keys(job.returns), ['m1'], 'the job and its return came along');
  const states = await c.client.get<{ states: Array<{ id: string }> }>(`/v1/jobs/${before.jid}/states`);
  t.same(
    states.states.map((s) => s.id),
    ['moved'],
  );
  await c.waitMinionsKnown(['m1']);
  const after = await c.run('m1', 'test.ping');
  t.same(after.returns.m1?.return, true, 'the minion is still accepted and runs jobs');
});
