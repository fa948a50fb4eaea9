// The master's garbage collections during a swarm, from V8's --trace-gc lines: per kind, how
// many and the longest and total pause (wall ms, what the event loop waited), the main isolate
// only (a worker thread's isolate traces its own lines). Issue 24's GC settings were compared so:
//   BENCH_MASTER_NODE_ARGS='--trace-gc --no-parallel-scavenge' BENCH_MASTER_STDOUT=/tmp/m.gc \
//     BENCH_AGENT_NICE=19 node bench/swarm.mjs 3000 --procs 2
//   node bench/gc-trace.mjs /tmp/m.gc [LINE]
// LINE (optional): the trace's line count at the end of the connect phase (e.g. `wc -l` when
// swarm's BENCH_TIMELINE=1 prints connect_end_monotonic_s): the lines before it are `connect`,
// the rest `after` (the pings). Prints one JSON line.
import { readFileSync } from 'node:fs';

const [file, split] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/gc-trace.mjs TRACE_FILE [CONNECT_END_LINE]');
const lines = readFileSync(file, 'utf8').split('\n');
const isolateOf = (line) => /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
const counts = new Map();
for (const l of lines) {
  const iso = isolateOf(l);
  if (iso) counts.set(iso, (counts.get(iso) ?? 0) + 1);
}
// the main thread's isolate collects the most
const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
const end = split === undefined ? Infinity : Number(split);
const phases = { connect: {}, after: {} };
lines.forEach((l, i) => {
  if (isolateOf(l) !== main) return;
  const m = /ms: (Scavenge|Minor Mark-Sweep|Mark-Compact(?: \(reduce\))?)[^,]*, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(l);
  if (!m) return;
  const kind = (phases[i < end ? 'connect' : 'after'][m[1]] ??= { n: 0, max_ms: 0, total_ms: 0 });
  kind.n++;
  kind.max_ms = Math.max(kind.max_ms, Number(m[2]));
  kind.total_ms = Math.round((kind.total_ms + Number(m[2])) * 10) / 10;
});
console.log(JSON.stringify({ bench: 'gc-trace', ...phases }));
