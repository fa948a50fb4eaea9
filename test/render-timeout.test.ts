import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

/**
 * Compiles run on worker threads: a template that would render for ever (nested loops over
 * large ranges) holds up only its own worker. While it renders, the API answers and another
 * minion's highstate completes; after render_timeout its compile fails with
 * BRINE_ERR_COMPILE_RENDER_TIMEOUT naming the file. A template that eats memory takes down only
 * its worker (compile_worker_memory_mb), which is replaced: BRINE_ERR_MASTER_COMPILE_WORKER.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-render-limits-'));
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
// r3's pillar loops for ever: pillar renders on the workers too
writeTree(pillar, {
  'top.sls': "base:\n  'r3':\n    - slow\n",
  'slow.sls': '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\nnever: 1\n',
});
writeTree(states, {
  'top.sls': "base:\n  '*':\n    - fine\n",
  'fine.sls': 'fine:\n  test.succeed_without_changes\n',
  'runaway.sls': '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\nnever:\n  test.nop\n',
  'hungry.sls':
    "{% set ns = namespace(l=[]) %}{% for a in range(100000) %}{% for b in range(100) %}{% do ns.l.append('a long string that takes room ' ~ a ~ '-' ~ b) %}{% endfor %}{% endfor %}\nnever:\n  test.nop\n",
});
const cluster = new Cluster({
  minions: ['r1', 'r2', 'r3'],
  master: {
    file_roots: { base: [states] },
    pillar_roots: { base: [pillar] },
    render_timeout: 8,
    compile_workers: 2,
    compile_worker_memory_mb: 64,
    timeout: 90,
  },
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

type Report = { returns: Record<string, { retcode: number; return: unknown }> };

t.test('a runaway template holds up only its worker, then fails naming the file', async (t) => {
  const { jid } = await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'r1', fun: 'state.sls', arg: ['runaway'], timeout: 90 });
  // while r1's compile loops on a worker, the master serves everyone else
  const fine = await cluster.run('r2', 'state.apply', [], { timeout: 90 });
  t.equal(fine.returns.r2!.retcode, 0, 'another minion applies its highstate meanwhile');
  const during = await cluster.client.get<Report>(`/v1/jobs/${jid}`);
  t.notOk(during.returns.r1, 'the runaway compile is still going (render_timeout is 8 s)');
  const { until } = await import('./helpers/proc.js');
  const done = await until(
    async () => {
      const r = await cluster.client.get<Report>(`/v1/jobs/${jid}`);
      return r.returns.r1 ? r : undefined;
    },
    'the runaway job returns',
    60_000,
  );
  t.not(done.returns.r1!.retcode, 0);
  t.match(JSON.stringify(done.returns.r1!.return), /BRINE_ERR_COMPILE_RENDER_TIMEOUT/);
  t.match(JSON.stringify(done.returns.r1!.return), /runaway\.sls/);
});

t.test('a template past the memory limit fails its compile; the worker is replaced', async (t) => {
  const hungry = await cluster.run('r1', 'state.sls', ['hungry'], { timeout: 90 });
  t.not(hungry.returns.r1!.retcode, 0);
  t.match(JSON.stringify(hungry.returns.r1!.return), /BRINE_ERR_MASTER_COMPILE_WORKER/);
  t.match(JSON.stringify(hungry.returns.r1!.return), /hungry\.sls/);
  const again = await cluster.run(['r1', 'r2'], 'state.apply', [], { timeout: 90, tgt_type: 'list' });
  for (const id of ['r1', 'r2']) t.equal(again.returns[id]!.retcode, 0, `${id}: compiles work again`);
});

t.test('a runaway pillar template holds up only its worker too', async (t) => {
  const { jid } = await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'r3', fun: 'state.apply', timeout: 90 });
  const fine = await cluster.run('r2', 'state.apply', [], { timeout: 90 });
  t.equal(fine.returns.r2!.retcode, 0, 'another minion applies its highstate meanwhile');
  const { until } = await import('./helpers/proc.js');
  const done = await until(
    async () => {
      const r = await cluster.client.get<Report>(`/v1/jobs/${jid}`);
      return r.returns.r3 ? r : undefined;
    },
    'the job with the runaway pillar returns',
    60_000,
  );
  t.not(done.returns.r3!.retcode, 0);
  t.match(JSON.stringify(done.returns.r3!.return), /BRINE_ERR_COMPILE_RENDER_TIMEOUT/);
  t.match(JSON.stringify(done.returns.r3!.return), /slow\.sls/);
});
