import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { startPostgres, type PostgresServer } from './support/postgres.js';

/**
 * The reactor in a two-master cluster on a real PostgreSQL, both masters with the same reactor
 * config: minion a1 (on master A) sends an event, and a reaction applies an SLS on minion b1 (on
 * master B), once; an operator's `brine event send` reacts too; a reaction that triggers itself
 * stops at reactor_max_depth and is logged.
 */

interface ReactorJob {
  jid: string;
  tag: string;
  depth: number;
}
interface Report {
  job: { fun: string; user: string };
  returns: Record<string, { success: boolean; return: unknown }>;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'brine-reactor-'));
const tree = path.join(tmp, 'tree');
const reactors = path.join(tmp, 'reactor');
mkdirSync(tree);
mkdirSync(reactors);
writeFileSync(path.join(tree, 'web.sls'), 'deployed:\n  test.succeed_with_changes:\n    - name: deployed by {{ pillar.get("from", "nobody") }}\n');
writeFileSync(path.join(tree, 'top.sls'), "base:\n  'b1':\n    - web\n");
writeFileSync(path.join(tree, 'broken.sls'), 'broken:\n  test.fail_without_changes:\n    - name: it broke\n');
writeFileSync(
  path.join(reactors, 'deploy.sls'),
  "deploy_b1:\n  local.state.apply:\n    - tgt: b1\n    - args:\n      - pillar: {from: {{ data['id'] }}-{{ data['data']['version'] }}}\n",
);
writeFileSync(path.join(reactors, 'ops.sls'), "say:\n  local.test.echo:\n    - tgt: {{ data['to'] }}\n    - arg:\n      - {{ tag }}\n");
writeFileSync(path.join(reactors, 'loop.sls'), 'again:\n  local.event.send:\n    - tgt: a1\n    - args:\n      - tag: {{ tag }}\n');
const reactor = [
  { 'myco/deploy': [path.join(reactors, 'deploy.sls')] },
  { 'myco/ops/*': [path.join(reactors, 'ops.sls')] },
  { 'myco/loop': [path.join(reactors, 'loop.sls')] },
];

let pg: PostgresServer;
let a: Cluster;
let b: Cluster;

t.before(async () => {
  pg = await startPostgres();
  await pg.createDatabase('brine');
  const common = { store: pg.url('brine'), store_password_file: pg.passwordFile, file_roots: { base: [tree] }, reactor, reactor_max_depth: 2 };
  a = new Cluster({ master: { ...common, cluster_id: 'master-a' } });
  await a.startMaster();
  const pki = path.join(a.dir, 'master', 'pki');
  b = new Cluster({ master: { ...common, cluster_id: 'master-b', tls_cert: path.join(pki, 'master.crt'), tls_key: path.join(pki, 'master.key') } });
  await b.startMaster();
  await Promise.all([a.startMinion('a1').waitEvent('minion_ready'), b.startMinion('b1').waitEvent('minion_ready')]);
  await a.waitMinionsKnown(['a1']);
  await b.waitMinionsKnown(['b1']);
});
t.teardown(async () => {
  await a?.close();
  await b?.close();
  await pg?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const reactions = async (tag: string) => (await a.client.get<{ reactions: ReactorJob[] }>('/v1/reactions')).reactions.filter((r) => r.tag === tag);

t.test("a1's event.send runs b1's highstate, once, though both masters have the rule", async (t) => {
  const sent = await a.run('a1', 'event.send', ['myco/deploy', { version: 3 }]);
  t.match(sent.returns.a1, { success: true, retcode: 0, return: true });
  const [r] = await until(async () => ((await reactions('myco/deploy')).length ? reactions('myco/deploy') : undefined), 'the reaction job');
  const report = await until(async () => {
    const rep = await b.client.get<Report>(`/v1/jobs/${r!.jid}`);
    return rep.returns.b1 ? rep : undefined;
  }, "b1's return");
  t.match(report.job, { fun: 'state.apply', user: 'reactor' });
  t.equal(report.returns.b1!.success, true);
  t.match(JSON.stringify(report.returns.b1!.return), /deployed by a1-3/, "the reactor saw a1's id and data");
  // b1 has applied the reaction's job by now: a second reaction (master B's) would be in the store
  t.equal((await reactions('myco/deploy')).length, 1, 'one reaction in the cluster');
  t.equal(r!.depth, 1);
  // a minion may not forge the master's own events
  const forged = await a.run('a1', 'event.send', ['salt/job/1/ret/b1', {}]);
  t.match(forged.returns.a1, { success: false, return: /BRINE_ERR_MASTER_EVENT_TAG|master's own namespace/ });
});

t.test('a failed state is an event of its own, seen on every master', async (t) => {
  const seen: Array<{ tag: string; data: Record<string, unknown> }> = [];
  const stop = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const done = a.client.events(
    'brine/job/*/failed/*',
    (ev) => seen.push(ev as (typeof seen)[number]),
    stop.signal,
    () => opened(),
  );
  await open;
  const r = await b.run('b1', 'state.apply', ['broken']);
  const ev = await until(() => seen.find((e) => e.tag === `brine/job/${r.jid}/failed/b1`), "the failed state's event on A");
  stop.abort();
  await done;
  t.match(ev.data, { jid: r.jid, id: 'b1', __id__: 'broken', name: 'it broke', comment: String });
});

t.test('brine event send on the CLI triggers a reaction', async (t) => {
  const sent = await b.brine(['event', 'send', 'myco/ops/hello', '{"to": "a1"}']);
  t.equal(sent.code, 0, sent.stderr);
  const [r] = await until(async () => ((await reactions('myco/ops/hello')).length ? reactions('myco/ops/hello') : undefined), 'the reaction job');
  const report = await until(async () => {
    const rep = await a.client.get<Report>(`/v1/jobs/${r!.jid}`);
    return rep.returns.a1 ? rep : undefined;
  }, "a1's return");
  t.same(report.returns.a1!.return, 'myco/ops/hello');
  const refused = await b.brine(['event', 'send', 'brine/auth', '{}']);
  t.not(refused.code, 0);
  t.match(refused.stderr, /BRINE_ERR_MASTER_EVENT_TAG/);
});

t.test('a reaction that triggers itself is stopped at reactor_max_depth and logged', async (t) => {
  const since = a.master.lines.length;
  const sent = await a.brine(['event', 'send', 'myco/loop']);
  t.equal(sent.code, 0, sent.stderr);
  const stopped = await a.master.waitEvent('reactor_loop_stopped', 15_000, since);
  t.match(stopped, { code: 'BRINE_ERR_MASTER_REACTOR_LOOP', rule: 'myco/loop', depth: 3 });
  // the second link's record may commit just after its own event was refused
  const chain = await until(async () => {
    const c = await reactions('myco/loop');
    return c.length >= 2 ? c : undefined;
  }, 'both links recorded');
  t.same(chain.map((r) => r.depth).sort(), [1, 2], 'two reactions in the chain, the third refused');
});
