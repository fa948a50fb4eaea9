import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import { until } from './helpers/proc.js';

/**
 * A template the render deadline cannot interrupt (a regular expression that backtracks over a
 * grain its minion sets) holds up one compile worker only until the watchdog (render_timeout
 * plus a grace) kills and replaces it: that minion's compile fails naming the file, every other
 * compile goes on. compile_workers: 0 still means one worker process: nothing renders on the
 * master's event loop.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-watchdog-'));
const states = path.join(dir, 'states');
writeTree(states, {
  'top.sls': "base:\n  '*':\n    - word\n",
  'word.sls': "word:\n  test.succeed_without_changes:\n    - name: {{ 'long' if grains.word is match('^(a+)+$') else 'short' }}\n",
});
const cluster = new Cluster({
  minions: ['calm', 'stuck'],
  minionConfig: (id) => ({ grains: { word: id === 'stuck' ? `${'a'.repeat(48)}!` : 'aaaa' } }),
  master: { file_roots: { base: [states] }, pillar_roots: {}, render_timeout: 2, compile_workers: 0, timeout: 60 },
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

type Report = { returns: Record<string, { retcode: number; return: unknown }> };

t.test('a stuck template fails its own compile; the other minion applies its highstate', async (t) => {
  const { jid } = await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'stuck', fun: 'state.apply', timeout: 60 });
  // the API answers while the stuck compile holds the (only) worker
  t.ok((await cluster.client.get<{ minions: unknown[] }>('/v1/minions')).minions.length >= 2, 'the API answers');
  const calm = await cluster.run('calm', 'state.apply', [], { timeout: 60 });
  t.equal(calm.returns.calm!.retcode, 0, 'the other minion applies its highstate');
  const done = await until(
    async () => {
      const r = await cluster.client.get<Report>(`/v1/jobs/${jid}`);
      return r.returns.stuck ? r : undefined;
    },
    'the stuck job returns',
    60_000,
  );
  const text = JSON.stringify(done.returns.stuck!.return);
  t.not(done.returns.stuck!.retcode, 0);
  t.match(text, /BRINE_ERR_MASTER_COMPILE_WORKER/, 'a coded error');
  t.match(text, /word\.sls/, 'naming the file');
  t.match(text, /render_timeout/, 'and why');
  // the worker was replaced: compiles go on
  const again = await cluster.run('calm', 'state.apply', [], { timeout: 60 });
  t.equal(again.returns.calm!.retcode, 0, 'a later compile succeeds');
});
