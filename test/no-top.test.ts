import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import { brine } from './support/brine-cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-no-top-'));
const empty = path.join(dir, 'empty');
const other = path.join(dir, 'other');
writeTree(other, { 'top.sls': "base:\n  'nobody':\n    - a\n", 'a.sls': 'x:\n  test.nop: []\n' });
writeTree(empty, { README: 'no states here\n' });
const cluster = new Cluster({ minions: ['m1'], master: { file_roots: { base: [other] } } });
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

const NO_STATES = {
  'no_|-states_|-states_|-None': {
    result: false,
    comment: 'No Top file or master_tops data matches found. Please see master log for details.',
    name: 'No States',
    changes: {},
    __run_num__: 0,
  },
};

t.test('brine local: a highstate with no top file is a failure, as in Salt, not an empty success', async (t) => {
  const r = await brine(['local', 'state.apply', '--file-root', empty, '--out', 'json']);
  t.equal(r.code, 1);
  t.same(JSON.parse(r.stdout), { local: NO_STATES });
  const noMatch = await brine(['local', 'state.highstate', '--file-root', other, '--id', 'm1', '--out', 'json']);
  t.equal(noMatch.code, 1);
  t.same(JSON.parse(noMatch.stdout), { local: NO_STATES });
});

t.test('a minion whose top matches nothing returns the same failure', async (t) => {
  const r = await cluster.run('m1', 'state.apply', [], { timeout: 30 });
  t.equal(r.returns.m1!.retcode, 1);
  t.same(r.returns.m1!.return, NO_STATES);
  t.equal(r.returns.m1!.success, false);
});
