import t from 'tap';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster } from './helpers/cluster.js';

/**
 * /metrics of a real master with real minions, scraped after jobs and parsed with a Prometheus
 * text-format parser: the families exist with the right types and their values moved.
 */
interface Family {
  name: string;
  type: string;
  metrics: Array<{ value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }>;
}

const tree = mkdtempSync(path.join(os.tmpdir(), 'brine-metrics-'));
writeFileSync(path.join(tree, 'top.sls'), "base:\n  '*':\n    - ok\n  'm1':\n    - bad\n");
writeFileSync(path.join(tree, 'ok.sls'), 'one:\n  test.succeed_with_changes: []\n');
writeFileSync(path.join(tree, 'bad.sls'), 'two:\n  test.fail_without_changes: []\n');
const cluster = new Cluster({ minions: ['m1', 'm2'], master: { file_roots: { base: [tree] } } });
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(tree, { recursive: true, force: true });
});

async function scrape(
  headers: Record<string, string> = { authorization: `Bearer ${cluster.client.target.token}` },
): Promise<{ status: number; type: string | null; families: Map<string, Family> }> {
  const res = await fetch(`${cluster.apiUrl}/metrics`, { headers });
  const text = await res.text();
  const families = res.ok ? new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f])) : new Map<string, Family>();
  return { status: res.status, type: res.headers.get('content-type'), families };
}

const value = (f: Family | undefined, labels: Record<string, string> = {}) =>
  Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? NaN);

t.test('/metrics needs the token (unless metrics_public)', async (t) => {
  t.equal((await scrape({})).status, 401);
});

t.test('/metrics in Prometheus text format: minions, jobs, state results, compile and store histograms', async (t) => {
  const before = await scrape();
  t.equal(before.status, 200);
  t.match(before.type, /^text\/plain; version=0\.0\.4/);
  t.equal(value(before.families.get('brine_minions_connected')), 2, 'two minions connected');
  t.equal(before.families.get('brine_preauth_connections')?.type, 'GAUGE');
  t.equal(before.families.get('brine_minion_spool_backlog')?.type, 'GAUGE');

  await cluster.run('*', 'state.apply');
  await cluster.run('*', 'test.ping');
  const after = await scrape();
  const jobs = after.families.get('brine_jobs_published_total')!;
  t.equal(jobs.type, 'COUNTER');
  t.equal(value(jobs, { function: 'state.apply' }), 1);
  t.equal(value(jobs, { function: 'test.ping' }), 1);
  const results = after.families.get('brine_state_results_total')!;
  t.equal(value(results, { result: 'true' }), 2, 'two states succeeded');
  t.equal(value(results, { result: 'false' }), 1, 'one failed');
  const compile = after.families.get('brine_compile_seconds')!;
  t.equal(compile.type, 'HISTOGRAM');
  t.equal(Number(compile.metrics[0]!.count), 2, 'one compile per minion of the highstate');
  const writes = after.families.get('brine_store_write_seconds')!;
  t.equal(writes.type, 'HISTOGRAM');
  t.ok(Number(writes.metrics[0]!.count) > 0, 'store batches timed');
  // the fleet benches read the longest event-loop block and the process's own RSS and CPU here
  t.ok(value(after.families.get('nodejs_eventloop_lag_max_seconds')) >= 0, 'event-loop block measured');
  t.ok(value(after.families.get('process_resident_memory_bytes')) > 0, 'RSS reported');
});
