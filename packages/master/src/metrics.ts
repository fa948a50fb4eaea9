import { readdir } from 'node:fs/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventBus } from './event-bus.js';
import type { MinionHub } from './hub.js';
import type { GitUpdates } from './git-updates.js';
import { loopBlockLog } from './loop-block-log.js';

/**
 * The master's Prometheus metrics (`/metrics`). Jobs and state results are counted from this
 * master's own bus events (not those another master of a cluster fired, which it counts itself);
 * gauges are read off the hub when scraped.
 */
export class MasterMetrics {
  readonly registry = new Registry();
  readonly compileSeconds: Histogram;
  readonly storeWriteSeconds: Histogram;

  constructor(hub: MinionHub, events: EventBus, git?: GitUpdates) {
    const registers = [this.registry];
    // Node's own: process CPU and RSS, heap, GC, and nodejs_eventloop_lag_max_seconds (the longest
    // event-loop block since the previous scrape), which the fleet benches read
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 5 });
    for (const name of WALKING_METRICS) this.registry.removeSingleMetric(name);
    openFdsGauge(registers);
    new Gauge({
      name: 'brine_minions_connected',
      help: 'Minions with an authenticated session on this master',
      registers,
      collect() {
        this.set(hub.sessions.size);
      },
    });
    new Gauge({
      name: 'brine_preauth_connections',
      help: 'Connections that have not authenticated yet',
      registers,
      collect() {
        this.set(hub.guard.stats.unauthenticated);
      },
    });
    new Gauge({
      name: 'brine_minion_spool_backlog',
      help: 'Unacknowledged results and returns a minion reported holding when it connected',
      labelNames: ['minion'],
      registers,
      collect() {
        this.reset();
        for (const [id, s] of hub.sessions) if (s.spool) this.set({ minion: id }, s.spool);
      },
    });
    new Gauge({
      name: 'brine_git_remote_failing',
      help: 'Git remotes (gitfs, git_pillar) whose last fetch failed: 1 while they serve their last good commit',
      labelNames: ['kind', 'remote'],
      registers,
      collect() {
        this.reset();
        for (const r of git?.status() ?? []) this.set({ kind: r.kind, remote: r.name }, r.ok ? 0 : 1);
      },
    });
    const jobs = new Counter({ name: 'brine_jobs_published_total', help: 'Jobs published on this master, by function', labelNames: ['function'], registers });
    const results = new Counter({
      name: 'brine_state_results_total',
      help: 'State results stored, by result (true, false, none for test-mode would-change)',
      labelNames: ['result'],
      registers,
    });
    this.compileSeconds = new Histogram({
      name: 'brine_compile_seconds',
      help: 'Time to compile one minion’s state for a job (top file, SLS, requisites)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.storeWriteSeconds = new Histogram({
      name: 'brine_store_write_seconds',
      help: 'Time to commit one batch of store writes',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    if (process.env.BRINE_LOOP_CPU_MONITOR === '1') loopCpuGauge(registers);
    events.subscribe('brine/job/*/new', (ev) => {
      if (!ev.origin) jobs.inc({ function: String((ev.data as { fun?: string }).fun ?? '') });
    });
    events.subscribe('brine/job/*/prog/*', (ev) => {
      if (ev.origin) return;
      for (const r of (ev.data as { results?: Array<{ result: unknown }> }).results ?? []) {
        results.inc({ result: r.result === true ? 'true' : r.result === false ? 'false' : 'none' });
      }
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * prom-client's default metrics that walk every handle, request or descriptor on the event loop at
 * each scrape (process._getActiveHandles, getActiveResourcesInfo, a readdirSync of /proc/self/fd):
 * with 10,000 minions connected one scrape held the master's loop 40-47 ms (perf, bench/swarm.mjs).
 * The descriptor count stays, read off the loop.
 */
const WALKING_METRICS = [
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'process_open_fds',
];

function openFdsGauge(registers: Registry[]): void {
  if (process.platform !== 'linux') return;
  new Gauge({
    name: 'process_open_fds',
    help: 'Number of open file descriptors.',
    registers,
    async collect() {
      // the readdir's own descriptor is among those it lists
      this.set((await readdir('/proc/self/fd')).length - 1);
    },
  });
}

/**
 * BRINE_LOOP_CPU_MONITOR=1 (the fleet benches): the longest event-loop block since the previous
 * scrape as the loop's own time. nodejs_eventloop_lag_max_seconds is wall time: on a machine whose
 * cores other processes share (the benches' agents) it also counts the spells the master waited
 * for a core, and in a loaded VM an epoll_wait of 2 ms that returns 30-110 ms late (seen with
 * `perf trace`), which no change to the master moves. A 2 ms timer reads the loop's active time
 * (libuv's, outside the wait for events: work, GC, a blocking call such as an fsync) and the main
 * thread's CPU clock; between two ticks that came late, the active time is what held the loop
 * (it still counts preemption in the middle of a task), the CPU time the work alone.
 */
function loopCpuGauge(registers: Registry[]): void {
  const tickMs = 2;
  const max = { active: 0, cpu: 0, gc: 0 };
  // the longest block's window (by active time) and the GC pauses since the previous scrape: the
  // observer reports a pause after the block it was in, so the two meet when scraped
  let longest = { start: 0, end: 0, active: 0 };
  const pauses: Array<{ start: number; end: number }> = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.startTime + e.duration > longest.start) pauses.push({ start: e.startTime, end: e.startTime + e.duration });
  }).observe({ entryTypes: ['gc'] });
  const logBlock = process.env.BRINE_LOOP_BLOCK_LOG ? loopBlockLog(process.env.BRINE_LOOP_BLOCK_LOG) : undefined;
  let wall = performance.now();
  let active = performance.eventLoopUtilization().active;
  let cpu = threadCpuMs();
  setInterval(() => {
    const w = performance.now();
    const a = performance.eventLoopUtilization().active;
    const c = threadCpuMs();
    if (w - wall > 2 * tickMs) {
      max.active = Math.max(max.active, a - active);
      max.cpu = Math.max(max.cpu, c - cpu);
      if (a - active > longest.active) longest = { start: wall, end: w, active: a - active };
      logBlock?.(wall, w, a - active, c - cpu);
    }
    wall = w;
    active = a;
    cpu = c;
  }, tickMs).unref();
  const gauge = (name: string, help: string, key: 'active' | 'cpu' | 'gc'): void => {
    new Gauge({
      name,
      help: `${help} (BRINE_LOOP_CPU_MONITOR=1)`,
      registers,
      collect() {
        if (key === 'gc') {
          max.gc = pauses.reduce((t, p) => t + Math.max(0, Math.min(p.end, longest.end) - Math.max(p.start, longest.start)), 0);
          pauses.length = 0;
          longest = { start: performance.now(), end: 0, active: 0 };
        }
        this.set(max[key] / 1000);
        max[key] = 0;
      },
    });
  };
  gauge('brine_eventloop_block_max_active_seconds', 'The longest event-loop block since the previous scrape, outside the wait for events', 'active');
  gauge('brine_eventloop_block_max_cpu_seconds', 'The main thread CPU time of the longest event-loop block since the previous scrape', 'cpu');
  gauge('brine_eventloop_block_max_gc_seconds', 'The garbage collectors’ pauses within the longest event-loop block since the previous scrape', 'gc');
}

function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}
