// Swarm: N real minion agents (real TLS WebSockets, own Ed25519 keys, real auth, own result
// spool) spread over K child processes, against one real master process. Prints one JSON line:
//   connect_ms      first start() to every agent authenticated and its grains stored
//   first_ready_ms / all_ready_ms   first start() to the first / last agent's welcome
//   ping_ms, ping2_ms   test.ping published to every return stored (the API's wait resolves after commit)
//   pings_ms, pings_master_cpu_ms   with BENCH_PINGS=n: every ping, and the master's CPU time in each
//   master_rss_mb, master_rss_kb_per_minion   the master's RSS after connect, and its growth per minion
//   master_cpu_s    the master's CPU time (user + system) during connect and during the pings
//   store_commit_ms the time the master's store took to commit, during connect and during the pings
//   event_loop_max_block_ms   the master's longest event-loop block during connect and during the
//                   pings (its /metrics nodejs_eventloop_lag_max_seconds, scraped before and after)
//   event_loop_max_block_active_ms   the same as the loop's time outside its wait for events (on a
//                   loaded machine a wake-up comes tens of ms late: wall time counts it, this does not);
//                   _cpu_ms: the main thread's CPU time in it, _gc_ms: the garbage collectors' pauses
//                   in it (brine_eventloop_block_max_*_seconds)
//   master_admission  the master's busy refusals, auth timeouts and resumed TLS sessions (/v1/stats)
//   agents          reconnects (welcomes after an agent's first), handshake timeouts and other
//                   failed tries, busy refusals heard and the waits they asked (busy_wait_s), the
//                   agents' processes' CPU from start to their last first welcome (connect_cpu_s)
//                   and the time their start loops took (start_loop_ms), summed over the processes
// The agents start 50 a turn of their process (BENCH_START_CHUNK; a large one starts them all at
// once), at most 300 of a process connecting at once (BENCH_CONNECTING; 0: no limit, every agent
// arriving at once as a fleet's hosts would: then a process's thousands of handshakes share its
// turns and the master waits on them), with the master's fingerprint pinned. BENCH_TIMELINE=1
// prints the master's CPU and the welcomes every 500 ms (stderr); BENCH_MASTER_CONFIG adds master
// config lines ('max_admitting: 900'); BENCH_AGENT_NODE_ARGS / BENCH_MASTER_NODE_ARGS: Node flags;
// BENCH_AGENT_NICE=19: agents at that niceness, so the master has a core whenever it is runnable,
// as with minions on other hosts.
// With --storm (or BENCH_STORM=1), then a reconnect storm and a second line: see bench/lib/storm.mjs.
// Last, a line for the agents all leaving at once: the time until the master counts no minion
// connected, its CPU then and its longest event-loop block (leave_*).
// Usage: node bench/swarm.mjs [N] [--procs K] [--storm]   (defaults 1000 and 1; BENCH_MINIONS and
// BENCH_PROCS work too). Thousands of agents need K > 1: one process holds about 4 descriptors per agent.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { positional, procsArg, readiness, spawnAgents } from './lib/agent-procs.mjs';
import { grainsStored, measured, startMaster } from './lib/cluster.mjs';
import { storm } from './lib/storm.mjs';

const N = Number(positional()[0] ?? process.env.BENCH_MINIONS ?? 1000);
const K = procsArg();
// the machine's load before the run: others' work skews the times (compare CPU times instead)
const loadBefore = Math.round(os.loadavg()[0] * 10) / 10;
const withStorm = process.argv.includes('--storm') || process.env.BENCH_STORM === '1';
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-swarm-'));
// BENCH_MASTER_CONFIG: YAML lines appended to the master's config (e.g. 'max_admitting: 900')
let master = await startMaster(dir, (process.env.BENCH_MASTER_CONFIG ?? '').replaceAll('\\n', '\n'));
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'] };
const ready = readiness(N);
const agents = await spawnAgents({
  n: N,
  procs: K,
  dir,
  port: master.ready.port,
  prefix: 'swarm',
  grains,
  masterFinger: master.ready.fingerprint,
  onReady: ready.onReady,
});
const dbFile = path.join(dir, 'master', 'master.db');

const rss0 = master.rss();
let t0;
const timeline = [];
const connect = await measured(master, async () => {
  t0 = performance.now();
  // BENCH_TIMELINE=1: every 500 ms, the master's CPU and how many agents were welcomed (stderr)
  const sampler = process.env.BENCH_TIMELINE === '1' ? sample(timeline) : undefined;
  // the monotonic clock (perf's -k CLOCK_MONOTONIC) at the phase's start and end, for a profile of it
  if (sampler) console.error(`connect_start_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
  agents.start();
  await ready.all();
  await grainsStored(dbFile, N);
  clearInterval(sampler);
  if (sampler) console.error(`connect_end_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
});
if (timeline.length) console.error(timeline.map((r) => `${r.t}ms cpu=${r.cpu}ms ready=${r.ready}`).join('\n'));
const rss1 = master.rss();
const connected = await agents.stats();
const hubStats = await master.client.get('/v1/stats');
const pings = [];
const pingsCpu = [];
const ping = await measured(master, async () => {
  if (process.env.BENCH_TIMELINE === '1') console.error(`ping_start_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
  let cpu = master.cpu();
  const cpuOfPing = () => {
    const now = master.cpu();
    pingsCpu.push(Math.round(now - cpu));
    cpu = now;
    if (process.env.BENCH_TIMELINE === '1') console.error(`ping_done_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
  };
  const p1 = performance.now();
  const res = await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
  const pingMs = performance.now() - p1;
  cpuOfPing();
  const res2 = await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
  const ping2Ms = performance.now() - p1 - pingMs;
  cpuOfPing();
  // BENCH_PINGS=n: n pings in all (the first two as ping_ms and ping2_ms; every one in pings_ms): a
  // master warmed up by the ones before, and a spread to compare within one run
  for (let i = 2; i < Number(process.env.BENCH_PINGS ?? 2); i++) {
    if (i === 2 && process.env.BENCH_TIMELINE === '1') console.error(`warm_pings_start_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
    const p = performance.now();
    await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
    pings.push(Math.round(performance.now() - p));
    cpuOfPing();
  }
  if (process.env.BENCH_TIMELINE === '1') console.error(`ping_end_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
  return { res, res2, pingMs, ping2Ms };
});

console.log(
  JSON.stringify({
    bench: 'swarm',
    minions: N,
    procs: K,
    connect_ms: Math.round(connect.ms),
    first_ready_ms: Math.round(ready.first - t0),
    all_ready_ms: Math.round(ready.last - t0),
    ping_ms: Math.round(ping.out.pingMs),
    ping2_ms: Math.round(ping.out.ping2Ms),
    ...(pings.length > 0 ? { pings_ms: [Math.round(ping.out.pingMs), Math.round(ping.out.ping2Ms), ...pings], pings_master_cpu_ms: pingsCpu } : {}),
    returns: Object.keys(ping.out.res.returns).length,
    returns2: Object.keys(ping.out.res2.returns).length,
    missing: ping.out.res.missing.length + ping.out.res2.missing.length,
    master_rss_mb: Math.round(rss1 / 1024),
    master_rss_kb_per_minion: Math.round((rss1 - rss0) / N),
    master_cpu_s: { connect: round2(connect.cpuS), ping: round2(ping.cpuS) },
    store_commit_ms: { connect: connect.storeWriteMs, ping: ping.storeWriteMs },
    event_loop_max_block_ms: { connect: connect.loopMs, ping: ping.loopMs },
    event_loop_max_block_active_ms: { connect: connect.loopActiveMs, ping: ping.loopActiveMs },
    event_loop_max_block_cpu_ms: { connect: connect.loopCpuMs, ping: ping.loopCpuMs },
    event_loop_max_block_gc_ms: { connect: connect.loopGcMs, ping: ping.loopGcMs },
    master_admission: {
      busy_refused: hubStats.busy_refused,
      auth_timeouts: hubStats.auth_timeouts,
      tls_resumed: hubStats.tls_resumed,
      unauth_refused: hubStats.unauth_refused,
    },
    agents: {
      reconnects: connected.reconnects,
      handshake_timeouts: connected.handshake_timeouts,
      failed_tries: connected.unreachable,
      busy: connected.busy,
      busy_wait_s: round2(connected.busy_wait_ms / 1000),
      connect_cpu_s: round2(connected.connect_cpu_ms / 1000),
      start_loop_ms: connected.start_loop_ms,
      reasons: connected.reasons,
    },
    cpus: os.cpus().length,
    load_avg_before: loadBefore,
  }),
);

if (withStorm) master = await storm({ n: N, dir, master, agents, ready, dbFile });

// the fleet leaving at once (a network partition, a rack switched off): every session closes together
await master.loopMax();
const leaveCpu = master.cpu();
const leaveStart = performance.now();
if (process.env.BENCH_TIMELINE === '1') console.error(`leave_start_monotonic_s ${Number(process.hrtime.bigint()) / 1e9}`);
await agents.stop();
// each scrape starts the longest block afresh: the longest of them all
const leave = { wall: 0, cpu: 0 };
for (;;) {
  const loop = await master.loopMax();
  leave.wall = Math.max(leave.wall, loop.wall ?? 0);
  leave.cpu = Math.max(leave.cpu, loop.cpu ?? 0);
  if (!(loop.connected > 0)) break;
  await new Promise((r) => setTimeout(r, 50));
}
console.log(
  JSON.stringify({
    bench: 'swarm_leave',
    minions: N,
    leave_ms: Math.round(performance.now() - leaveStart),
    leave_master_cpu_ms: Math.round(master.cpu() - leaveCpu),
    leave_event_loop_max_block_ms: leave.wall,
    leave_event_loop_max_block_cpu_ms: leave.cpu,
  }),
);
master.proc.kill('SIGTERM');
await new Promise((r) => master.proc.on('exit', r));
rmSync(dir, { recursive: true, force: true });

function sample(rows) {
  let cpu = master.cpu();
  let count = 0;
  return setInterval(() => {
    const now = master.cpu();
    rows.push({ t: Math.round(performance.now() - t0), cpu: Math.round(now - cpu), ready: ready.count - count });
    cpu = now;
    count = ready.count;
  }, 500);
}

function round2(x) {
  return Math.round(x * 100) / 100;
}
