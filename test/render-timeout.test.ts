import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

/**
 * A template that would render forever (nested loops over large ranges) fails its minion's
 * compile after render_timeout with BRINE_ERR_COMPILE_RENDER_TIMEOUT naming the file; the
 * master keeps serving: other minions' states and the API work right after.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-render-timeout-'));
const states = path.join(dir, 'states');
writeTree(states, {
  'top.sls': "base:\n  '*':\n    - fine\n",
  'fine.sls': 'fine:\n  test.succeed_without_changes\n',
  'runaway.sls': '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\nnever:\n  test.nop\n',
});
const cluster = new Cluster({ minions: ['r1', 'r2'], master: { file_roots: { base: [states] }, render_timeout: 1, timeout: 60 } });
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('the runaway SLS fails its compile, naming the file; the master goes on', async (t) => {
  const runaway = await cluster.run('r1', 'state.sls', ['runaway'], { timeout: 60 });
  const ret = runaway.returns.r1!;
  t.not(ret.retcode, 0);
  t.match(JSON.stringify(ret.return), /BRINE_ERR_COMPILE_RENDER_TIMEOUT/);
  t.match(JSON.stringify(ret.return), /runaway\.sls/);
  const fine = await cluster.run('r2', 'state.apply', [], { timeout: 60 });
  t.equal(fine.returns.r2!.retcode, 0, 'another minion applies its states');
  const ping = await cluster.run('*', 'test.ping');
  t.same(Object.keys(ping.returns).sort(), ['r1', 'r2'], 'and every minion answers');
});
