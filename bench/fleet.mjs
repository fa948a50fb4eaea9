// Fleet highstate: N real minion agents (own keys, TLS WebSockets), spread over K child processes,
// against one real master process; every agent runs a S-state highstate compiled by the master (pillar,
// top file, includes, requisites) and streams each state result back. Prints one JSON line:
//   publish_to_stored_ms  job published -> every state result and return stored in SQLite
//   rows_per_s            state_results rows stored per second over that time
//   results_stored        state results stored (all N*S, or as far as it got by BENCH_DEADLINE_S, 600)
//   master_cpu_ms         CPU time (user + system) the master spent on the job (and, beside it,
//                         compile_workers_cpu_ms: its compile worker processes')
//   master_rss_mb         master RSS after the job
//   event_loop_max_block_ms   the master's longest event-loop block during the job (/metrics)
//   report_ms             the job's report of N returns read back (GET /v1/jobs/:jid); beside it the
//                         master's CPU time and longest block in that read
//   second_run_ms         the same again (compile cache warm, nothing changed in the tree;
//                         BENCH_SECOND_RUN=0 skips it)
// Usage: node bench/fleet.mjs [N] [S] [--procs K]   (defaults 500, 50 and 1; BENCH_PROCS works too)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { positional, procsArg, readiness, spawnAgents } from './lib/agent-procs.mjs';
import { grainsStored, measured, startMaster } from './lib/cluster.mjs';

const [argN, argS] = positional();
const N = Number(argN ?? process.env.BENCH_MINIONS ?? 500);
const S = Number(argS ?? process.env.BENCH_STATES ?? 50);
const K = procsArg();
// the machine's load before the run: others' work skews the times (compare CPU times instead)
const loadBefore = Math.round(os.loadavg()[0] * 10) / 10;
const deadlineMs = Number(process.env.BENCH_DEADLINE_S ?? 600) * 1000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-fleet-'));
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
mkdirSync(path.join(states, 'app'), { recursive: true });
mkdirSync(pillar);
// S states over five SLS files: includes, require chains, pillar values in arguments
const perFile = Math.ceil(S / 5);
let made = 0;
for (let f = 0; f < 5; f++) {
  let text = f > 0 ? `include:\n  - app.part${f - 1}\n\n` : '';
  for (let i = 0; i < perFile && made < S; i++, made++) {
    const fun = i % 5 === 0 ? 'succeed_with_changes' : 'succeed_without_changes';
    text += `state-${f}-${i}:\n  test.${fun}:\n    - comment: {{ pillar['app']['name'] }} ${i}\n`;
    if (i > 0) text += `    - require:\n      - test: state-${f}-${i - 1}\n`;
  }
  writeFileSync(path.join(states, 'app', `part${f}.sls`), text);
}
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - app.part4\n");
writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - app\n");
// BENCH_PER_MINION_PILLAR=1: every minion's pillar differs, so no two minions share a compile
const perMinion = process.env.BENCH_PER_MINION_PILLAR === '1';
writeFileSync(path.join(pillar, 'app.sls'), perMinion ? "app:\n  name: fleet-{{ grains['id'] }}\n" : 'app:\n  name: fleet\n');
// BENCH_COMPILE_WORKERS=N: the master's compile_workers (default: one per core; 0 means one)
const workers = process.env.BENCH_COMPILE_WORKERS;

const master = await startMaster(
  dir,
  `file_roots:\n  base: [${states}]\npillar_roots:\n  base: [${pillar}]\n${workers !== undefined ? `compile_workers: ${Number(workers)}\n` : ''}`,
);
const { client, rss } = master;
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'], role: 'app' };
const ready = readiness(N);
const agents = await spawnAgents({ n: N, procs: K, dir, port: master.ready.port, prefix: 'fleet', grains, onReady: ready.onReady });
const dbFile = path.join(dir, 'master', 'master.db');
const t0 = performance.now();
agents.start();
await ready.all();
await grainsStored(dbFile, N);
const connectMs = performance.now() - t0;

const db = new Database(dbFile, { readonly: true });
const count = db.prepare('SELECT count(*) AS n FROM state_results WHERE jid = ?').pluck();
async function run() {
  const { out, ms, cpuS, workersS, loopMs } = await measured(master, async () => {
    const t0 = performance.now();
    const res = await client.post('/v1/jobs', { tgt: '*', fun: 'state.apply', wait: true, timeout: Math.ceil(deadlineMs / 1000) });
    let rows = count.get(res.jid);
    while (rows < N * S && performance.now() - t0 < deadlineMs) {
      await new Promise((r) => setTimeout(r, 20));
      rows = count.get(res.jid);
    }
    return { res, rows };
  });
  const { res, rows } = out;
  const failed = Object.values(res.returns).filter((r) => !r.success).length;
  return {
    jid: res.jid,
    ms,
    rows,
    cpuMs: cpuS * 1000,
    workersMs: workersS * 1000,
    loopMs,
    returns: Object.keys(res.returns).length,
    failed,
    missing: res.missing.length,
  };
}
const first = await run();
// the finished job's report read back through the API, as `brine jobs show` does
const report = await measured(master, () => client.get(`/v1/jobs/${first.jid}`));
const second = process.env.BENCH_SECOND_RUN === '0' ? undefined : await run();
const stats = await client.get('/v1/stats');

console.log(
  JSON.stringify({
    bench: 'fleet',
    minions: N,
    procs: K,
    states_per_minion: S,
    connect_ms: Math.round(connectMs),
    results_expected: N * S,
    results_stored: first.rows,
    returns: first.returns,
    failed: first.failed,
    missing: first.missing,
    publish_to_stored_ms: Math.round(first.ms),
    rows_per_s: Math.round(first.rows / (first.ms / 1000)),
    master_cpu_ms: Math.round(first.cpuMs),
    compile_workers_cpu_ms: Math.round(first.workersMs),
    master_rss_mb: Math.round(rss() / 1024),
    event_loop_max_block_ms: first.loopMs,
    report_ms: Math.round(report.ms),
    report_master_cpu_ms: Math.round(report.cpuS * 1000),
    report_event_loop_max_block_ms: report.loopMs,
    second_run_ms: second && Math.round(second.ms),
    second_run_cpu_ms: second && Math.round(second.cpuMs),
    second_run_event_loop_max_block_ms: second?.loopMs,
    compile_cache: { hits: stats.compile_hits, misses: stats.compile_misses },
    per_minion_pillar: perMinion,
    compile_workers: workers === undefined ? 'default' : Number(workers),
    cpus: os.cpus().length,
    load_avg_before: loadBefore,
  }),
);

db.close();
await agents.stop();
master.proc.kill('SIGTERM');
await new Promise((r) => master.proc.on('exit', r));
rmSync(dir, { recursive: true, force: true });
