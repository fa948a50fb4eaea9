import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { writeTree } from './helpers/fleet-tree.js';
import { brine } from './support/brine-cli.js';

/**
 * `brine local` as `salt-call --local`: cp.* read the local file roots, grains.setval persists
 * in `<data_dir>/grains` of the minion config and the next run sees it, state.sls_id and
 * state.test compile and run the local tree.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-local-everyday-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
writeTree(dir, {
  'minion.yaml': 'id: l1\ndata_dir: data\nfile_roots:\n  base:\n    - tree\n',
  'tree/files/a.txt': 'hello\n',
  'tree/s.sls': 'one:\n  test.succeed_without_changes\ntwo:\n  test.succeed_with_changes:\n    - require:\n      - test: one\nthree:\n  test.nop\n',
});

const local = async (...args: string[]) => {
  const r = await brine(['local', ...args, '--out', 'json', '--config', 'minion.yaml'], { cwd: dir });
  t.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).local as unknown;
};

t.test('cp.* through the local roots', async (t) => {
  t.same(await local('cp.list_master'), ['files/a.txt', 's.sls']);
  t.equal(await local('cp.get_file_str', 'salt://files/a.txt'), 'hello\n');
  t.equal(await local('cp.cache_file', 'salt://files/a.txt'), path.join(dir, 'data/files/base/files/a.txt'));
});

t.test('grains.setval persists beside the minion data and the next run sees it', async (t) => {
  t.same(await local('grains.setval', 'role', 'web'), { role: 'web' });
  t.match(readFileSync(path.join(dir, 'data/grains'), 'utf8'), /role: web/);
  t.same(await local('grains.item', 'role'), { role: 'web' });
});

t.test('state.sls_id and state.test', async (t) => {
  t.same(Object.keys((await local('state.sls_id', 'two', 's')) as object).sort(), [
    'test_|-one_|-one_|-succeed_without_changes',
    'test_|-two_|-two_|-succeed_with_changes',
  ]);
  const dry = (await local('state.test', 's')) as Record<string, { result: unknown }>;
  t.equal(dry['test_|-two_|-two_|-succeed_with_changes']!.result, null, 'test=True: would change');
});
