// The master's SQLite store alone, without agents: a steady stream of queued writes (event rows
// of about 1 KB, 5 a millisecond: a few MB of WAL a second, so SQLite's WAL passes its checkpoint
// size every second or two) for 15 s, committed by the store's group commit on this event loop.
// Prints one JSON line: commits, commits over 20 ms (over20) and the longest (max_commit_ms; a
// checkpoint on the loop makes its commit wait for an fsync), and the longest loop block as wall
// time, as the loop's active time and as CPU time (see loopCpuGauge in packages/master/src/metrics.ts).
// Usage: node bench/lib/store-stream.mjs [ROOT]   (ROOT: a built Brine checkout, default this one,
// to compare an older build with the same load)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const { MasterStore } = await import(pathToFileURL(path.join(root, 'packages/master/dist/store.js')).href);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-store-stream-'));
const s = new MasterStore(path.join(dir, 'master.db'));
let maxCommit = 0;
let commits = 0;
let over20 = 0;
s.onWriteTime = (sec) => {
  commits++;
  if (sec > 0.02) over20++;
  maxCommit = Math.max(maxCommit, sec * 1000);
};
const lag = monitorEventLoopDelay({ resolution: 2 });
lag.enable();
const cpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};
const max = { active: 0, cpu: 0 };
let wall = performance.now();
let active = performance.eventLoopUtilization().active;
let cpu = cpuMs();
const monitor = setInterval(() => {
  const w = performance.now();
  const a = performance.eventLoopUtilization().active;
  const c = cpuMs();
  if (w - wall > 4) {
    max.active = Math.max(max.active, a - active);
    max.cpu = Math.max(max.cpu, c - cpu);
  }
  wall = w;
  active = a;
  cpu = c;
}, 2);
const blob = 'r'.repeat(800);
let n = 0;
const writer = setInterval(() => {
  for (let i = 0; i < 5; i++) s.insertEvent(`brine/job/x/ret/m${n++}`, { blob, n });
}, 1);
await new Promise((r) => setTimeout(r, 15_000));
clearInterval(writer);
clearInterval(monitor);
lag.disable();
s.close();
rmSync(dir, { recursive: true, force: true });
const r1 = (x) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify({
    bench: 'store-stream',
    root,
    writes: n,
    commits,
    over20,
    max_commit_ms: r1(maxCommit),
    loop_max_wall_ms: r1(lag.max / 1e6),
    loop_max_active_ms: r1(max.active),
    loop_max_cpu_ms: r1(max.cpu),
    load_avg: r1(os.loadavg()[0]),
  }),
);
