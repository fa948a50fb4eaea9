import { writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

interface Block {
  /** CLOCK_MONOTONIC at the block's end, µs: what `perf record -k CLOCK_MONOTONIC` stamps its samples with. */
  monotonic_end_us: number;
  ms: number;
  active_ms: number;
  cpu_ms: number;
  /** The GC pauses inside it: [kind (1 minor, 4 major, 8 incremental, 16 weak callbacks), ms]. */
  gc: Array<[number, number]>;
  start: number;
}

/**
 * BRINE_LOOP_BLOCK_LOG=FILE (with BRINE_LOOP_CPU_MONITOR=1; a bench's tool): the 30 longest
 * event-loop blocks over 25 ms, each with its GC pauses and its end on the monotonic clock, written
 * to FILE every second, so a `perf record` of the master can be cut to exactly those blocks.
 */
export function loopBlockLog(file: string): (start: number, end: number, activeMs: number, cpuMs: number) => void {
  const blocks: Block[] = [];
  const pauses: Array<{ start: number; ms: number; kind: number }> = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, ms: e.duration, kind: (e as unknown as { detail: { kind: number } }).detail.kind });
  }).observe({ entryTypes: ['gc'] });
  setInterval(() => {
    for (const b of blocks) {
      const inside = pauses.filter((p) => p.start < b.start + b.ms && p.start + p.ms > b.start);
      b.gc = inside.map((p) => [p.kind, Math.round(p.ms * 10) / 10]);
    }
    blocks.sort((a, b) => b.ms - a.ms).splice(30);
    if (blocks.length)
      pauses.splice(
        0,
        pauses.findIndex((p) => p.start + p.ms > Math.min(...blocks.map((b) => b.start))),
      );
    writeFileSync(file, blocks.map((b) => JSON.stringify(b)).join('\n') + '\n');
  }, 1000).unref();
  return (start, end, activeMs, cpuMs) => {
    if (end - start < 25) return;
    const r = (x: number) => Math.round(x * 10) / 10;
    blocks.push({ monotonic_end_us: Number(process.hrtime.bigint() / 1000n), ms: r(end - start), active_ms: r(activeMs), cpu_ms: r(cpuMs), gc: [], start });
  };
}
