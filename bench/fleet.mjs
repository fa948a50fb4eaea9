// Fleet highstate: N real minion agents (own keys, TLS WebSockets) in this process against one
// real master process; every agent runs a S-state highstate compiled by the master (pillar,
// top file, includes, requisites) and streams each state result back. Prints one JSON line:
//   publish_to_stored_ms  job published -> every state result and return stored in SQLite
//   rows_per_s            state_results rows stored per second over that time
//   master_cpu_ms         CPU time (user + system) the master spent on the job
//   master_rss_mb         master RSS after the job
//   second_run_ms         the same again (compile cache warm, nothing changed in the tree)
// Usage: node bench/fleet.mjs [N] [S]   (defaults 500 and 50)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createLogger } from '@brine/core';
import { MasterClient } from '@brine/master/client';
import { loadMinionConfig, MinionAgent } from '@brine/minion';

const N = Number(process.argv[2] ?? process.env.BENCH_MINIONS ?? 500);
const S = Number(process.argv[3] ?? process.env.BENCH_STATES ?? 50);
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
writeFileSync(path.join(pillar, 'app.sls'), 'app:\n  name: fleet\n');

const cfg = path.join(dir, 'master.yaml');
writeFileSync(
  cfg,
  `interface: 127.0.0.1\nport: 0\napi_port: 0\ndata_dir: ${dir}/master\nautosign: ['*']\nping_interval: 0\nlog_level: warn\n` +
    `file_roots:\n  base: [${states}]\npillar_roots:\n  base: [${pillar}]\n`,
);
const master = spawn(process.execPath, ['packages/cli/dist/bin.js', 'master', '--config', cfg, '--log-level', 'info'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
const ready = await new Promise((resolve, reject) => {
  let buf = '';
  master.stderr.setEncoding('utf8').on('data', (c) => {
    buf += c;
    for (const line of buf.split('\n')) if (line.includes('"master_ready"')) resolve(JSON.parse(line));
  });
  master.on('exit', () => reject(new Error(buf)));
});
master.stderr.removeAllListeners('data');
master.stderr.resume();
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${master.pid}/status`, 'utf8'))[1]);
const cpu = () => {
  const f = readFileSync(`/proc/${master.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
};
const client = new MasterClient({ url: ready.api_url, token: readFileSync(`${dir}/master/api_token`, 'utf8').trim() });

const log = createLogger({ level: 'silent' });
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'], role: 'app' };
const agents = [];
for (let i = 0; i < N; i++) {
  const c = loadMinionConfig(undefined, {
    id: `fleet-${String(i).padStart(5, '0')}`,
    master: '127.0.0.1',
    master_port: ready.port,
    data_dir: path.join(dir, 'm', String(i)),
    recon_default: 0.2,
    recon_max: 2,
    log_level: 'silent',
  });
  agents.push(new MinionAgent(c, { log, grains }));
}
await Promise.all(agents.map((a) => new Promise((resolve) => { a.once('ready', resolve); a.start(); })));
for (;;) {
  const { minions } = await client.get('/v1/minions');
  if (minions.filter((m) => m.connected && m.grains.os).length === N) break;
  await new Promise((r) => setTimeout(r, 20));
}

const db = new Database(path.join(dir, 'master', 'master.db'), { readonly: true });
const count = db.prepare('SELECT count(*) AS n FROM state_results WHERE jid = ?');
async function run() {
  const cpu0 = cpu();
  const t0 = performance.now();
  const res = await client.post('/v1/jobs', { tgt: '*', fun: 'state.apply', wait: true, timeout: 300 });
  let rows = count.get(res.jid).n;
  while (rows < N * S && performance.now() - t0 < 300_000) {
    await new Promise((r) => setTimeout(r, 10));
    rows = count.get(res.jid).n;
  }
  const ms = performance.now() - t0;
  const failed = Object.values(res.returns).filter((r) => !r.success).length;
  return { ms, rows, cpuMs: cpu() - cpu0, returns: Object.keys(res.returns).length, failed, missing: res.missing.length };
}
const first = await run();
const second = await run();
const stats = await client.get('/v1/stats');

console.log(JSON.stringify({
  bench: 'fleet',
  minions: N,
  states_per_minion: S,
  results_expected: N * S,
  results_stored: first.rows,
  returns: first.returns,
  failed: first.failed,
  missing: first.missing,
  publish_to_stored_ms: Math.round(first.ms),
  rows_per_s: Math.round(first.rows / (first.ms / 1000)),
  master_cpu_ms: Math.round(first.cpuMs),
  master_rss_mb: Math.round(rss() / 1024),
  second_run_ms: Math.round(second.ms),
  second_run_cpu_ms: Math.round(second.cpuMs),
  compile_cache: { hits: stats.compile_hits, misses: stats.compile_misses },
  cpus: os.cpus().length,
}));

db.close();
await Promise.all(agents.map((a) => a.stop()));
master.kill('SIGTERM');
await new Promise((r) => master.on('exit', r));
rmSync(dir, { recursive: true, force: true });
