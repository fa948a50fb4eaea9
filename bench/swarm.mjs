// Swarm: N real minion agents (real TLS WebSockets, own Ed25519 keys, real auth) in this
// process against one real master process. Prints one JSON line:
//   connect_ms  first start() to every agent authenticated and its grains stored
//   ping_ms     test.ping published to every return stored (the API's wait resolves after commit)
//   master_rss_kb_per_minion  growth of the master's RSS per connected minion
// Usage: node bench/swarm.mjs [N]   (default 1000; BENCH_MINIONS works too)
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAgents, startAgents, startMaster, stop, waitGrains } from './lib/cluster.mjs';

const N = Number(process.argv[2] ?? process.env.BENCH_MINIONS ?? 1000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-swarm-'));
const master = await startMaster(dir);
const { client, rss } = master;
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'] };
const agents = createAgents(N, { dir, port: master.ready.port, prefix: 'swarm', grains });
const rss0 = rss();

const t0 = performance.now();
await startAgents(agents);
await waitGrains(client, N);
const connectMs = performance.now() - t0;
const rss1 = rss();

const t1 = performance.now();
const res = await client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
const pingMs = performance.now() - t1;
const t2 = performance.now();
const res2 = await client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
const ping2Ms = performance.now() - t2;

console.log(
  JSON.stringify({
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
  }),
);

await stop({ agents, master, dir });
