import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { fleetTree, writeTree } from './helpers/fleet-tree.js';
import { until } from './helpers/proc.js';

const tree = fleetTree();
const flag = path.join(tree.dir, 'go');
writeTree(tree.states, {
  'gate.sls': `first:
  test.succeed_with_changes: []

gate:
  cmd.run:
    - name: 'while [ ! -f ${flag} ]; do sleep 0.05; done; echo open'
    - require:
      - test: first

after-gate:
  file.managed:
    - name: ${tree.out}/after-gate.txt
    - source: salt://common/motd.j2
    - template: jinja
    - require:
      - cmd: gate

last:
  test.succeed_without_changes:
    - require:
      - file: after-gate
`,
});
const cluster = new Cluster({
  minions: ['web1'],
  minionConfig: () => ({ grains: { role: 'web' } }),
  master: { file_roots: { base: [tree.states] }, pillar_roots: { base: [tree.pillar] }, timeout: 30 },
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(tree.dir, { recursive: true, force: true });
});

function storedStates(jid: string): Array<{ run_num: number; id: string }> {
  const db = new Database(path.join(cluster.dir, 'master', 'master.db'), { readonly: true });
  try {
    return db.prepare('SELECT run_num, id FROM state_results WHERE jid = ? ORDER BY run_num').all(jid) as Array<{ run_num: number; id: string }>;
  } finally {
    db.close();
  }
}

t.test('a master restart in the middle of a highstate loses nothing; a second run is refused meanwhile', async (t) => {
  const job = await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'web1', fun: 'state.sls', arg: ['gate'] });
  // the first state is stored while the gate state blocks
  await until(async () => {
    const { states } = await cluster.client.get<{ states: unknown[] }>(`/v1/jobs/${job.jid}/states`);
    return states.length >= 1 ? true : undefined;
  }, 'the first state result');

  const second = await cluster.run('web1', 'state.apply', [], { timeout: 30 });
  t.equal(second.returns.web1!.retcode, 1);
  t.match(
    (second.returns.web1!.return as string[])[0],
    new RegExp(`^The function "state.sls" is running as PID \\d+ and was started at .* with jid ${job.jid}$`),
  );

  const web1 = cluster.minions.get('web1')!;
  await cluster.master.kill('SIGKILL');
  const mark = web1.lines.length;
  writeFileSync(flag, '');
  // the rest runs while the master is away: after-gate waits for the file server to come back
  await cluster.startMaster();
  const ready = await web1.waitFor((l) => l.event === 'minion_ready', 'minion_ready', 15_000, mark);
  t.ok((ready.resent_states as number) >= 1, 'spooled state results are sent again');
  const report = await until(
    async () => {
      const r = await cluster.client.get<{ returns: Record<string, { success: boolean; return: unknown }> }>(`/v1/jobs/${job.jid}`);
      return r.returns.web1 ? r : undefined;
    },
    'the return after restart',
    30_000,
  );
  t.equal(report.returns.web1!.success, true, JSON.stringify(report.returns.web1));
  await until(() => (storedStates(job.jid).length === 4 ? true : undefined), 'all four state results');
  t.same(
    storedStates(job.jid),
    [
      { run_num: 0, id: 'first' },
      { run_num: 1, id: 'gate' },
      { run_num: 2, id: 'after-gate' },
      { run_num: 3, id: 'last' },
    ],
    'each state result stored exactly once',
  );
  t.match(readFileSync(path.join(tree.out, 'after-gate.txt'), 'utf8'), /^Welcome to web1/);
  await until(async () => {
    const { states } = await cluster.client.get<{ states: unknown[] }>(`/v1/jobs/${job.jid}/states`);
    return states.length === 4 ? true : undefined;
  }, 'API sees the results');
});
