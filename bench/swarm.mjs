// Swarm: N real minion agents (real TLS WebSockets, own Ed25519 keys, real auth) in this
// process against one real master process. Prints one JSON line:
//   connect_ms  first start() to every agent authenticated and its grains stored
//   ping_ms     test.ping published to every return stored (the API's wait resolves after commit)
//   master_rss_kb_per_minion  growth of the master's RSS per connected minion
// Usage: node bench/swarm.mjs [N]   (default 1000; BENCH_MINIONS works too)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import { MasterClient } from '@brine/master/client';
import { loadMinionConfig, MinionAgent } from '@brine/minion';

const N = Number(process.argv[2] ?? process.env.BENCH_MINIONS ?? 1000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-swarm-'));
const cfg = path.join(dir, 'master.yaml');
writeFileSync(cfg, `interface: 127.0.0.1\nport: 0\napi_port: 0\ndata_dir: ${dir}/master\nautosign: ['*']\nping_interval: 0\nlog_level: warn\n`);

const master = spawn(process.execPath, ['packages/cli/dist/bin.js', 'master', '--config', cfg, '--log-level', 'info'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
const ready = await new Promise((resolve, reject) => {
  let buf = '';
  master.stderr.setEncoding('utf8').on('data', (c) => {
    buf += c;
    for (const line of buf.split('\n')) {
      if (line.includes('"master_ready"')) resolve(JSON.parse(line));
    }
  });
  master.on('exit', () => reject(new Error(buf)));
});
master.stderr.removeAllListeners('data');
master.stderr.resume();
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${master.pid}/status`, 'utf8'))[1]);
const client = new MasterClient({ url: ready.api_url, token: readFileSync(`${dir}/master/api_token`, 'utf8').trim() });

const log = createLogger({ level: 'silent' });
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'] };
const agents = [];
for (let i = 0; i < N; i++) {
  const c = loadMinionConfig(undefined, {
    id: `swarm-${String(i).padStart(5, '0')}`,
    master: '127.0.0.1',
    master_port: ready.port,
    data_dir: path.join(dir, 'm', String(i)),
    recon_default: 0.2,
    recon_max: 2,
    log_level: 'silent',
  });
  agents.push(new MinionAgent(c, { log, grains }));
}
const rss0 = rss();

const t0 = performance.now();
await Promise.all(agents.map((a) => new Promise((resolve) => { a.once('ready', resolve); a.start(); })));
for (;;) {
  const { minions } = await client.get('/v1/minions');
  if (minions.filter((m) => m.connected && m.grains.os).length === N) break;
  await new Promise((r) => setTimeout(r, 20));
}
const connectMs = performance.now() - t0;
const rss1 = rss();

const t1 = performance.now();
const res = await client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
const pingMs = performance.now() - t1;
const t2 = performance.now();
const res2 = await client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
const ping2Ms = performance.now() - t2;

console.log(JSON.stringify({
  bench: 'swarm',
  minions: N,
  connect_ms: Math.round(connectMs),
  ping_ms: Math.round(pingMs),
  ping2_ms: Math.round(ping2Ms),
  returns: Object.keys(res.returns).length,
  returns2: Object.keys(res2.returns).length,
  missing: res.missing.length,
  master_rss_mb: Math.round(rss1 / 1024),
  master_rss_kb_per_minion: Math.round((rss1 - rss0) / N),
}));

await Promise.all(agents.map((a) => a.stop()));
master.kill('SIGTERM');
await new Promise((r) => master.on('exit', r));
rmSync(dir, { recursive: true, force: true });
