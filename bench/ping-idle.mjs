// Pings on an idle master: N agents (K processes) connect, then each ping waits until the master
// is idle (the fleet's first pillar requests done, which bench/swarm.mjs's ping overlaps) and
// prints per ping: store commits, wall ms, master CPU (in the ping, and with the held acks sent
// after it), the acks sent alone before its last return was stored, the longest event-loop block
// and the agents' CPU; then two pings back to back, the master's and the agents' CPU of all pings
// in all divided by their number (the idle waits and scrapes between them included), and the
// acks sent with a job frame or alone. Usage: node bench/ping-idle.mjs [N] [--procs K]
// (PINGS=3 by default).
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { positional, procsArg, readiness, spawnAgents } from './lib/agent-procs.mjs';
import { grainsStored, measured, startMaster } from './lib/cluster.mjs';

const N = Number(positional()[0] ?? 1000);
const K = procsArg();
const PINGS = Number(process.env.PINGS ?? 3);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-fanping-'));
const master = await startMaster(dir);
const grains = { os: 'Debian', os_family: 'Debian', kernel: 'Linux', ipv4: ['127.0.0.1'] };
const ready = readiness(N);
const agents = await spawnAgents({ n: N, procs: K, dir, port: master.ready.port, prefix: 'swarm', grains, onReady: ready.onReady });
const kids = () =>
  readdirSync('/proc/self/task')
    .flatMap((t) => readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))
    .filter((p) => p !== master.proc.pid);
const cpuOf = (pid) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
};
const agentsCpu = () => kids().reduce((s, p) => s + cpuOf(p), 0);
const connect = await measured(master, async () => {
  agents.start();
  await ready.all();
  await grainsStored(path.join(dir, 'master', 'master.db'), N);
});
const stats = async () => (await fetch(`${master.ready.api_url}/v1/stats`, { headers: { authorization: `Bearer ${master.client.target.token}` } })).json();
const out = {
  minions: N,
  load: os.loadavg()[0].toFixed(1),
  connect_ms: Math.round(connect.ms),
  connect_cpu: connect.cpuS,
  connect_block: connect.loopMs,
  pings: [],
};
// the master idle (connect's tail of pillar and mine requests done) before each ping
async function idle() {
  for (let i = 0; i < 40; i++) {
    const c0 = master.cpu();
    await sleep(500);
    if (master.cpu() - c0 <= 20) return;
  }
}
const commitsNow = async () => {
  const t = await (await fetch(`${master.ready.api_url}/metrics`, { headers: { authorization: `Bearer ${master.client.target.token}` } })).text();
  return Number(/^brine_store_write_seconds_count(?:\{[^}]*\})? (\S+)$/m.exec(t)?.[1] ?? NaN);
};
// the pings' window on the monotonic clock (µs), as --cpu-prof stamps its samples: a profile of
// the whole run can be cut to it (connect would swamp it)
const mono = () => Number(process.hrtime.bigint() / 1000n);
const pingsFrom = mono();
// CPU of every ping in all, with what falls between the windows (held acks sent after a window)
const all0 = { master: master.cpu(), agents: agentsCpu() };
// BENCH_PHASE_FILE: where to write the master's and the agents' pids once the pings start (for perf/strace)
if (process.env.BENCH_PHASE_FILE) writeFileSync(process.env.BENCH_PHASE_FILE, JSON.stringify({ master: master.proc.pid, agents: kids() }) + '\n');
for (let i = 0; i < PINGS; i++) {
  await idle();
  // the scrapes of /metrics (commits, the longest block) stay outside the CPU read: at 10,000 one
  // costs the master tens of ms (every handle and descriptor listed), and it is not the ping's
  const k0 = await commitsNow();
  await master.loopMaxMs();
  const s0 = await stats();
  const a0 = agentsCpu();
  const m0 = master.cpu();
  const t0 = performance.now();
  const res = await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
  const ms = performance.now() - t0;
  const m1 = master.cpu();
  // acks written on their own before every return was stored: their writes (and the agents' deletes) fell inside the ping
  const s1 = await stats();
  await sleep(1500); // deferred acks go out
  const m2 = master.cpu();
  const agentsS = (agentsCpu() - a0) / 1000;
  // the longest block since the scrape before the ping (a scrape resets it: this one comes first)
  const block = await master.loopMaxMs();
  out.pings.push({
    commits: (await commitsNow()) - k0,
    ms: Math.round(ms),
    returns: Object.keys(res.returns).length,
    cpu: (m1 - m0) / 1000,
    block,
    cpu_with_acks: (m2 - m0) / 1000,
    acks_alone_in_ping: s1.acks_alone - s0.acks_alone,
    agents_cpu: agentsS,
  });
}
// back to back, as swarm.mjs does
await idle();
const bb = await measured(master, async () => {
  const t0 = performance.now();
  await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
  const t1 = performance.now();
  await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 120 });
  return [Math.round(t1 - t0), Math.round(performance.now() - t1)];
});
out.back_to_back = { ms: bb.out, cpu: bb.cpuS, block: bb.loopMs };
out.window_us = [pingsFrom, mono()];
// the last acks held (at most ACK_HOLD_MS, ack-batch.ts) go out before the totals are read
await sleep(5500);
await idle();
out.all_pings_cpu_per_ping = {
  master: (master.cpu() - all0.master) / 1000 / (PINGS + 2),
  agents: (agentsCpu() - all0.agents) / 1000 / (PINGS + 2),
};
const s = await stats();
out.acks = { with_frame: s.acks_with_frame, alone: s.acks_alone };
console.log(JSON.stringify(out));
await agents.stop();
master.proc.kill('SIGTERM');
await new Promise((r) => master.proc.on('exit', r));
rmSync(dir, { recursive: true, force: true });
