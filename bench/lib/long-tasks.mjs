// The longest tasks of a CPU profile (`node --cpu-prof`): a task is a run of samples with no
// idle sample between them, i.e. one stretch the event loop did not get back. For each of the
// longest it prints its length and where its time went (self time by function, and the JS frames
// below the event loop that started it), which names what blocked the loop. A profile of the
// master during a swarm: BENCH_MASTER_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR --cpu-prof-interval 200'.
// On a shared machine a process is also descheduled: one sample then spans milliseconds, which
// is wall time but no work. `busy` counts each sample for at most 4 intervals (the longest tasks
// are sorted by it); `gap` is the longest single sample, a hint of descheduling (or a native call).
// Usage: node bench/lib/long-tasks.mjs X.cpuprofile [count=10] [min_ms=20]   (LT_DEPTH=4: frames shown)
import { readFileSync } from 'node:fs';

const [file, countArg, minArg] = process.argv.slice(2);
const count = Number(countArg ?? 10);
const minMs = Number(minArg ?? 20);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => {
  const cf = n.callFrame;
  return `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
};
const idle = (id) => byId.get(id).callFrame.functionName === '(idle)';
const dts = p.timeDeltas.slice(1).sort((a, b) => a - b);
const interval = dts[dts.length >> 1] ?? 1000;

// sample i covers timeDeltas[i+1] (the time until the next sample)
const tasks = [];
let cur;
let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i] ?? 0;
  const dt = p.timeDeltas[i + 1] ?? 0;
  if (idle(p.samples[i])) {
    if (cur) tasks.push(cur);
    cur = undefined;
    continue;
  }
  cur ??= { start: t, ms: 0, busy: 0, gap: 0, samples: [] };
  cur.ms += dt / 1000;
  cur.busy += Math.min(dt, 4 * interval) / 1000;
  cur.gap = Math.max(cur.gap, dt / 1000);
  cur.samples.push([p.samples[i], dt]);
}
if (cur) tasks.push(cur);

const long = tasks.filter((k) => k.ms >= minMs).sort((a, b) => b.busy - a.busy);
console.log(`${tasks.length} tasks, ${long.length} of ${minMs} ms or more; profile ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s`);
for (const k of long.slice(0, count)) {
  const self = new Map();
  const roots = new Map();
  for (const [id, dt] of k.samples) {
    const n = byId.get(id);
    self.set(name(n), (self.get(name(n)) ?? 0) + dt);
    // the outermost three JS frames: what the event loop called into
    const chain = [];
    for (let x = id; x !== undefined; x = parent.get(x)) chain.push(byId.get(x));
    const js = chain.reverse().filter((f) => f.callFrame.url || f.callFrame.functionName.startsWith('('));
    const root = js
      .slice(0, Number(process.env.LT_DEPTH ?? 4))
      .map((f) => f.callFrame.functionName || '(anon)')
      .join(' > ');
    roots.set(root, (roots.get(root) ?? 0) + dt);
  }
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, us]) => `    ${(us / 1000).toFixed(1).padStart(6)} ${key}`)
      .join('\n');
  const at = ((k.start - p.startTime) / 1e6).toFixed(2);
  console.log(`\n${k.ms.toFixed(1)} ms (busy ${k.busy.toFixed(1)}, gap ${k.gap.toFixed(1)}) at +${at} s`);
  console.log(`  self:\n${top(self, 8)}`);
  console.log(`  entered by:\n${top(roots, 5)}`);
}
