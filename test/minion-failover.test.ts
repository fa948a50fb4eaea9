import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import { brine, until } from './helpers/proc.js';

// 200 states: the first 100 run at once, s100 waits for a file, the last 99 run once it is there
const STATES = 200;
const GATE = 100;
const tree = mkdtempSync(path.join(os.tmpdir(), 'brine-failover-tree-'));
const gateFile = path.join(tree, 'go');
const sls: string[] = [];
for (let i = 0; i < STATES; i++) {
  const id = `s${String(i).padStart(3, '0')}`;
  if (i === GATE) sls.push(`${id}:\n  cmd.run:\n    - name: 'while [ ! -f ${gateFile} ]; do sleep 0.05; done; echo open'\n`);
  else sls.push(`${id}:\n  test.${i % 2 ? 'succeed_with_changes' : 'succeed_without_changes'}: []\n`);
}
writeTree(tree, {
  'states/top.sls': "base:\n  '*':\n    - many\n",
  'states/many.sls': sls.join('\n'),
  'pillar/top.sls': 'base: {}\n',
});
const roots = { file_roots: { base: [path.join(tree, 'states')] }, pillar_roots: { base: [path.join(tree, 'pillar')] }, timeout: 30 };

// Master A makes the cluster's identity on its first start; B is given the same pair through
// tls_cert/tls_key, so the fingerprint the minion pins on A holds on B.
const a = new Cluster({ master: roots });
const sharedCert = path.join(a.dir, 'master', 'pki', 'master.crt');
const sharedKey = path.join(a.dir, 'master', 'pki', 'master.key');
const b = new Cluster({ master: { ...roots, tls_cert: sharedCert, tls_key: sharedKey } });

t.teardown(async () => {
  await a.close();
  await b.close();
  rmSync(tree, { recursive: true, force: true });
});

function db(c: Cluster, readonly = true): Database.Database {
  return new Database(path.join(c.dir, 'master', 'master.db'), { readonly });
}

function storedRuns(c: Cluster, jid: string): number[] {
  const d = db(c);
  try {
    return (d.prepare('SELECT run_num FROM state_results WHERE jid = ? ORDER BY run_num').all(jid) as Array<{ run_num: number }>).map((r) => r.run_num);
  } finally {
    d.close();
  }
}

/**
 * Stands in for the shared PostgreSQL store these masters will have (issue 12, items 1 and 2):
 * there master B sees the job row A wrote. With one SQLite file each, the test writes A's job
 * row and its expected minions into B's file, so that B accepts the results of a job published
 * on A (a master refuses results of jobs it does not know, BRINE_ERR_MASTER_UNKNOWN_JOB).
 */
function carryJob(jid: string): void {
  const d = db(b, false);
  try {
    d.prepare('ATTACH DATABASE ? AS a').run(path.join(a.dir, 'master', 'master.db'));
    d.transaction(() => {
      d.prepare('INSERT INTO main.jobs SELECT * FROM a.jobs WHERE jid = ?').run(jid);
      d.prepare('INSERT INTO main.job_minions SELECT * FROM a.job_minions WHERE jid = ?').run(jid);
    })();
    d.prepare('DETACH DATABASE a').run();
  } finally {
    d.close();
  }
}

t.test('SIGKILL of the master in the middle of a 200-state highstate: the minion moves to the next master with its spool; nothing is lost', async (t) => {
  await a.startMaster();
  await b.startMaster();
  t.equal(b.fingerprint, a.fingerprint, 'the two masters present one TLS identity');
  const addrA = `127.0.0.1:${a.port}`;
  const addrB = `127.0.0.1:${b.port}`;
  // B is down while the results pile up, so they can only reach it through the spool
  await b.master.kill('SIGTERM');

  const m1 = a.startMinion('m1', { master: [addrA, addrB] });
  const ready = await m1.waitEvent('minion_ready');
  t.equal(ready.master, addrA, 'the first master of the list first');
  await a.waitMinionsKnown(['m1']);
  const ping = await a.run('m1', 'test.ping');
  t.equal(ping.returns.m1?.return, true, 'a job through master A');

  const { jid } = await a.client.post<{ jid: string }>('/v1/jobs', { tgt: 'm1', fun: 'state.apply' });
  carryJob(jid);
  await until(() => (storedRuns(a, jid).length >= GATE ? true : undefined), `A stores the ${GATE} states before the gate`, 30_000);

  const mark = m1.lines.length;
  await a.master.kill('SIGKILL');
  await m1.waitFor((l) => l.event === 'disconnected' && l.master === addrA, 'lost A', 15_000, mark);
  const moved = await m1.waitFor((l) => l.event === 'master_failover', 'master_failover', 15_000, mark);
  t.same([moved.from, moved.to], [addrA, addrB], 'it moves to the next master of the list');
  writeFileSync(gateFile, '');
  const done = await m1.waitFor((l) => l.event === 'job_done' && l.jid === jid, 'the highstate finishes', 30_000, mark);
  t.equal(done.sent, false, 'the return is produced while no master is reachable');
  const onA = storedRuns(a, jid);
  t.ok(onA.length >= GATE && onA.length < STATES, `A stored ${onA.length} of ${STATES} before it died`);

  await b.startMaster();
  const again = await m1.waitFor((l) => l.event === 'minion_ready' && l.master === addrB, 'minion_ready on B', 30_000, mark);
  t.equal(again.resent, 1, 'the spooled return goes to B');
  t.ok((again.resent_states as number) >= STATES - onA.length, `the ${again.resent_states as number} spooled state results go to B`);

  const report = await until(
    async () => {
      const r = await b.client.get<{ returns: Record<string, { success: boolean; return: unknown }> }>(`/v1/jobs/${jid}`);
      return r.returns.m1 ? r.returns.m1 : undefined;
    },
    'the return stored on B',
    30_000,
  );
  t.equal(report.success, true);
  const notOnA = Array.from({ length: STATES }, (_, i) => i).filter((i) => !onA.includes(i));
  await until(() => (notOnA.every((i) => storedRuns(b, jid).includes(i)) ? true : undefined), 'B stores every result A did not', 30_000);

  const d = db(b);
  const rows = d.prepare('SELECT run_num, id, count(*) AS n FROM state_results WHERE jid = ? GROUP BY run_num ORDER BY run_num').all(jid) as Array<{
    run_num: number;
    id: string;
    n: number;
  }>;
  d.close();
  t.ok(
    rows.every((r) => r.n === 1),
    'each result stored once on B',
  );
  t.ok(
    rows.every((r) => r.id === `s${String(r.run_num).padStart(3, '0')}`),
    'each row is its own state',
  );
  const union = new Set([...onA, ...rows.map((r) => r.run_num)]);
  t.equal(union.size, STATES, 'A and B together hold all 200 results: none lost');

  const spool = new Database(path.join(a.dir, 'minion-m1', 'spool.db'), { readonly: true });
  await until(() => ((spool.prepare('SELECT count(*) AS n FROM states').get() as { n: number }).n === 0 ? true : undefined), 'the spool is empty');
  t.equal((spool.prepare('SELECT count(*) AS n FROM spool').get() as { n: number }).n, 0, 'no return left in the spool');
  spool.close();

  await b.waitMinionsKnown(['m1']);
  const pingB = await b.run('m1', 'test.ping');
  t.equal(pingB.returns.m1?.return, true, 'and it runs jobs from B');
});

t.test('a listed master with another identity is refused, naming it (the pinned fingerprint still holds)', async (t) => {
  const other = new Cluster({ master: roots });
  t.teardown(() => other.close());
  await other.startMaster();
  t.not(other.fingerprint, a.fingerprint);
  const addr = `127.0.0.1:${other.port}`;
  const m2 = other.startMinion('m2', { master: [addr, `127.0.0.1:${b.port}`], master_finger: a.fingerprint });
  await m2.exited();
  t.equal(m2.exitCode, 1);
  t.match(m2.stderrText, `BRINE_ERR_MINION_MASTER_FINGER: master ${addr}: fingerprint ${other.fingerprint} does not match the pinned ${a.fingerprint}`);
});

t.test('a master whose configured identity file is missing does not start, naming the file', async (t) => {
  const missing = path.join(tree, 'missing.key');
  const file = path.join(tree, 'broken-master.yaml');
  const data = path.join(tree, 'broken-master');
  writeFileSync(file, stringify({ ...roots, interface: '127.0.0.1', port: 0, api_port: 0, data_dir: data, tls_cert: sharedCert, tls_key: missing }));
  const r = await brine(['master', '--config', file]);
  t.not(r.code, 0);
  t.match(r.stderr, `BRINE_ERR_MASTER_TLS_FILE`);
  t.match(r.stderr, `tls_key ${missing}: does not exist`);
});
