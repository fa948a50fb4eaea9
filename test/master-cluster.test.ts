import t from 'tap';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { startPostgres, type PostgresServer } from './support/postgres.js';

/**
 * Two real masters sharing one real PostgreSQL store, each with its own minions: keys accepted on
 * one are accepted on both, a job published on A runs on B's minions and is queryable from both,
 * every master shows the whole fleet, and a master serving another tree refuses the job's compile.
 */

interface Report {
  jid: string;
  returns: Record<string, { success: boolean; retcode: number; return: unknown }>;
  missing: Array<{ minion: string; reason: string }>;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'brine-mcluster-'));
const treeA = path.join(tmp, 'tree-a');
const treeB = path.join(tmp, 'tree-b');
writeFileSync(path.join(tmp, 'top.sls'), "base:\n  '*':\n    - hello\n");
for (const dir of [treeA, treeB]) {
  cpSync(path.join(tmp, 'top.sls'), path.join(dir, 'top.sls'));
  writeFileSync(path.join(dir, 'hello.sls'), 'hello:\n  test.succeed_with_changes:\n    - name: hello from {{ grains["id"] }}\nquiet:\n  test.nop: []\n');
}

let pg: PostgresServer;
let a: Cluster;
let b: Cluster;

t.before(async () => {
  pg = await startPostgres();
  await pg.createDatabase('brine');
  const store = { store: pg.url('brine'), store_password_file: pg.passwordFile };
  a = new Cluster({ master: { ...store, cluster_id: 'master-a', file_roots: { base: [treeA] } } });
  await a.startMaster();
  // one TLS identity for the cluster: B serves A's certificate and key
  const pki = path.join(a.dir, 'master', 'pki');
  b = new Cluster({
    master: { ...store, cluster_id: 'master-b', file_roots: { base: [treeB] }, tls_cert: path.join(pki, 'master.crt'), tls_key: path.join(pki, 'master.key') },
  });
  await b.startMaster();
  t.equal(b.fingerprint, a.fingerprint, 'both masters present the same certificate');
  await Promise.all([
    a.startMinion('a1').waitEvent('minion_ready'),
    a.startMinion('a2').waitEvent('minion_ready'),
    b.startMinion('b1').waitEvent('minion_ready'),
  ]);
  await a.waitMinionsKnown(['a1', 'a2']);
  await b.waitMinionsKnown(['b1']);
});
t.teardown(async () => {
  await a?.close();
  await b?.close();
  await pg?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

t.test('a key accepted on one master is accepted on all of them', async (t) => {
  for (const c of [a, b]) {
    const keys = await c.client.get<{ accepted: string[] }>('/v1/keys');
    t.same(keys.accepted.sort(), ['a1', 'a2', 'b1']);
  }
});

t.test('every master shows the whole fleet, and which master each minion is on', async (t) => {
  for (const c of [a, b]) {
    const { minions } = await until(async () => {
      const r = await c.client.get<{ minions: Array<{ id: string; connected: boolean; master: string | null }> }>('/v1/minions');
      return r.minions.filter((m) => m.connected).length === 3 ? r : undefined;
    }, 'all three connected');
    t.same(
      minions.map((m) => [m.id, m.connected, m.master]),
      [
        ['a1', true, 'master-a'],
        ['a2', true, 'master-a'],
        ['b1', true, 'master-b'],
      ],
    );
  }
});

t.test("a job published on A runs on B's minion too, and both masters answer for it", async (t) => {
  const r = await a.run('*', 'state.apply');
  t.same(r.missing, []);
  t.same(Object.keys(r.returns).sort(), ['a1', 'a2', 'b1']);
  t.ok(
    Object.values(r.returns).every((x) => x.success),
    'every minion applied',
  );
  const fromB = await b.client.get<Report>(`/v1/jobs/${r.jid}`);
  t.same(Object.keys(fromB.returns).sort(), ['a1', 'a2', 'b1'], 'B stored and reads the same returns');
  const statesA = await a.client.get<{ states: Array<{ minion: string; id: string; result: boolean }> }>(`/v1/jobs/${r.jid}/states`);
  const statesB = await b.client.get<{ states: Array<{ minion: string; id: string; result: boolean }> }>(`/v1/jobs/${r.jid}/states`);
  t.equal(statesA.states.length, 6, 'two states for each of three minions');
  t.same(statesB.states, statesA.states);
  // and from B to A's minions
  const back = await b.run(['a1', 'b1'], 'test.ping', [], { tgt_type: 'list' });
  t.same(Object.keys(back.returns).sort(), ['a1', 'b1']);
});

t.test("brine events on B streams what A fires, marked with A's name", async (t) => {
  const seen: Array<{ tag: string; origin?: string }> = [];
  const stop = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const done = b.client.events(
    'brine/job/*',
    (ev) => seen.push(ev),
    stop.signal,
    () => opened(),
  );
  await open;
  const r = await a.run('a1', 'test.ping');
  await until(() => (seen.some((e) => e.tag === `brine/job/${r.jid}/ret/a1`) ? true : undefined), "A's return event on B");
  stop.abort();
  await done;
  const mine = seen.filter((e) => e.tag.startsWith(`brine/job/${r.jid}/`));
  t.same(
    mine.map((e) => [e.tag, e.origin]),
    [
      [`brine/job/${r.jid}/new`, 'master-a'],
      [`brine/job/${r.jid}/ret/a1`, 'master-a'],
    ],
  );
});

t.test('a master whose tree differs refuses to compile the job, with a clear error', async (t) => {
  writeFileSync(path.join(treeB, 'hello.sls'), 'hello:\n  test.fail_without_changes: []\n');
  const r = await a.run('*', 'state.apply');
  t.ok(r.returns.a1?.success, "A's minions apply A's tree");
  t.notOk(r.returns.b1?.success, "B's minion does not apply a tree the job was not published with");
  t.match(JSON.stringify(r.returns.b1?.return), /BRINE_ERR_MASTER_TREE_MISMATCH|another state or pillar tree/);
  t.match(JSON.stringify(r.returns.b1?.return), /master-b/);
});

t.test('a key rejected on A is refused by B at its next publish', async (t) => {
  const before = await b.run('a2', 'test.ping');
  t.same(Object.keys(before.returns), ['a2'], "B targets A's minion");
  await a.client.post('/v1/keys/reject', { match: 'a2', include_accepted: true });
  await t.rejects(b.client.post('/v1/jobs', { tgt: 'a2', fun: 'test.ping', wait: true }), { code: 'BRINE_ERR_MASTER_NO_MINIONS' });
});
