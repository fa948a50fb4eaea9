// Master cluster: two real master processes sharing one real PostgreSQL (Debian's, started in a
// temp dir), minion agents split between them, jobs published on the first master. Beside it, the
// same jobs on one master with SQLite. Prints one JSON line per store and scenario:
//   ping_ms       test.ping to P minions published on master A -> every return stored
//   highstate_ms  an S-state highstate on H minions -> every state result and return stored
// Usage: node bench/cluster.mjs [P] [H] [S]   (defaults 1000, 500 and 50; Node 22.18+ / 24, which
// load the TypeScript PostgreSQL helper of the tests directly)
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { startPostgres } from '../test/support/postgres.ts';
import { createAgents, startAgents, startMaster, stop, waitGrains } from './lib/cluster.mjs';

const P = Number(process.argv[2] ?? 1000);
const H = Number(process.argv[3] ?? 500);
const S = Number(process.argv[4] ?? 50);
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'], role: 'app' };

function tree(dir) {
  const states = path.join(dir, 'states');
  mkdirSync(states, { recursive: true });
  let text = '';
  for (let i = 0; i < S; i++) text += `s${i}:\n  test.${i % 5 === 0 ? 'succeed_with_changes' : 'succeed_without_changes'}: []\n`;
  writeFileSync(path.join(states, 'app.sls'), text);
  writeFileSync(path.join(states, 'top.sls'), "base:\n  'hs-*':\n    - app\n");
  return `file_roots:\n  base: [${states}]\n`;
}

/** Publishes on `client` and waits until `count()` reaches `want` rows. */
async function timed(client, body, count, want) {
  const t0 = performance.now();
  const res = await client.post('/v1/jobs', { ...body, wait: true, timeout: 300 });
  while ((await count(res.jid)) < want && performance.now() - t0 < 300_000) await new Promise((r) => setTimeout(r, 10));
  return { ms: Math.round(performance.now() - t0), returns: Object.keys(res.returns).length, missing: res.missing.length };
}

async function scenario(store, masters, counts) {
  // ping: P agents, split between the masters
  const pingAgents = masters.flatMap((m, i) => createAgents(share(P, masters.length, i), { dir: m.dir, port: m.ready.port, prefix: `ping${i}`, grains }));
  await startAgents(pingAgents);
  await waitGrains(masters[0].client, P);
  const ping = await timed(masters[0].client, { tgt: 'ping*', fun: 'test.ping' }, counts.returns, P);
  await Promise.all(pingAgents.map((a) => a.stop()));
  // highstate: H agents, split
  const hsAgents = masters.flatMap((m, i) => createAgents(share(H, masters.length, i), { dir: m.dir, port: m.ready.port, prefix: `hs-${i}`, grains }));
  await startAgents(hsAgents);
  await until(async () => (await masters[0].client.get('/v1/minions')).minions.filter((m) => m.connected && m.id.startsWith('hs-')).length === H);
  const hs = await timed(masters[0].client, { tgt: 'hs-*', fun: 'state.apply' }, counts.states, H * S);
  console.log(
    JSON.stringify({
      bench: 'cluster',
      store,
      masters: masters.length,
      scenario: 'ping',
      minions: P,
      ping_ms: ping.ms,
      returns: ping.returns,
      missing: ping.missing,
    }),
  );
  console.log(
    JSON.stringify({
      bench: 'cluster',
      store,
      masters: masters.length,
      scenario: 'highstate',
      minions: H,
      states_per_minion: S,
      highstate_ms: hs.ms,
      results: H * S,
      returns: hs.returns,
      missing: hs.missing,
    }),
  );
  return [...pingAgents, ...hsAgents];
}

/** The i-th of k near-equal parts of n. */
const share = (n, k, i) => Math.floor(n / k) + (i < n % k ? 1 : 0);

async function until(check) {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

// ---- PostgreSQL, two masters ----
const server = await startPostgres();
// a failed run must not leave a server behind
process.on('uncaughtException', (err) => {
  console.error(err);
  server.stop().finally(() => process.exit(1));
});
process.on('unhandledRejection', (err) => {
  console.error(err);
  server.stop().finally(() => process.exit(1));
});
await server.createDatabase('brine');
const dirA = mkdtempSync(path.join(os.tmpdir(), 'brine-bench-ca-'));
const dirB = mkdtempSync(path.join(os.tmpdir(), 'brine-bench-cb-'));
const store = `store: ${server.url('brine')}\nstore_password_file: ${server.passwordFile}\n`;
const a = { dir: dirA, ...(await startMaster(dirA, `${store}cluster_id: bench-a\n${tree(dirA)}`)) };
const b = {
  dir: dirB,
  ...(await startMaster(dirB, `${store}cluster_id: bench-b\n${tree(dirB)}tls_cert: ${dirA}/master/pki/master.crt\ntls_key: ${dirA}/master/pki/master.key\n`)),
};
const url = new URL(server.url('brine'));
url.password = encodeURIComponent(server.password);
const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
const n = async (sql, jid) => Number((await pool.query(sql, [jid])).rows[0].n);
const pgAgents = await scenario('postgres', [a, b], {
  returns: (jid) => n('SELECT count(*) AS n FROM returns WHERE jid = $1', jid),
  states: (jid) => n('SELECT count(*) AS n FROM state_results WHERE jid = $1', jid),
});
await pool.end();
await stop({ agents: pgAgents, master: a, dir: dirA });
await stop({ agents: [], master: b, dir: dirB });
await server.stop();

// ---- SQLite, one master ----
const dirS = mkdtempSync(path.join(os.tmpdir(), 'brine-bench-cs-'));
const s = { dir: dirS, ...(await startMaster(dirS, tree(dirS))) };
const db = new Database(path.join(dirS, 'master', 'master.db'), { readonly: true });
const sqAgents = await scenario('sqlite', [s], {
  returns: async (jid) => db.prepare('SELECT count(*) AS n FROM returns WHERE jid = ?').get(jid).n,
  states: async (jid) => db.prepare('SELECT count(*) AS n FROM state_results WHERE jid = ?').get(jid).n,
});
db.close();
await stop({ agents: sqAgents, master: s, dir: dirS });
