/**
 * A template's host calls only ask the host: a `state.*` function named in one (which would run
 * states on the minion in the middle of its compile) is refused by the minion itself, whatever
 * the master sends it. Real master, real minion; the state a refused call names must not run.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-hostcall-state-'));
const states = path.join(dir, 'states');
mkdirSync(states, { recursive: true });
const touched = path.join(dir, 'touched-by-template');
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - sneaky\n");
writeFileSync(
  path.join(states, 'sneaky.sls'),
  `{% set ran = salt['state.single']('file.touch', name='${touched}') %}
after:
  test.nop: []
`,
);

const cluster = new Cluster({ master: { file_roots: { base: [states] }, pillar_roots: {}, timeout: 30 } });
t.before(async () => {
  await cluster.startMaster();
  await cluster.startMinion('m1').waitEvent('minion_ready');
  await cluster.waitMinionsKnown(['m1']);
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('a host call naming state.single is refused by the minion; the state does not run', async (t) => {
  const r = await cluster.brine(['validate', 'sneaky', '--minion', 'm1']);
  t.equal(r.code, 1, r.stdout);
  t.match(r.stderr, /sneaky\.sls:1:\d+: error .*salt\['state\.single'\].* failed on the minion: 'state\.single' is not available/);
  t.notOk(existsSync(touched), 'file.touch did not run on the minion');
  const apply = await cluster.run('m1', 'state.apply', [], { timeout: 30 });
  t.not(apply.returns.m1?.retcode, 0, JSON.stringify(apply.returns.m1?.return));
  t.match(JSON.stringify(apply.returns.m1?.return), /failed on the minion: 'state\.single' is not available/);
  t.notOk(existsSync(touched), 'nor during a state.apply');
});
