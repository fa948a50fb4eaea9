import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';
import { TestRepo } from '../../fileserver/test/git-repo.ts';

const log = createLogger({ level: 'silent' });

function tmp(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-git-backends-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function service(cfg: Partial<MasterConfig>): Promise<StateService> {
  const config = { ...MASTER_DEFAULTS, ...cfg } as MasterConfig;
  return new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
}

t.test('fileserver_backend [gitfs, roots]: git first, the roots for the rest; a job compiles one commit', async (t) => {
  const dir = tmp(t);
  const repo = new TestRepo(path.join(dir, 'repo'));
  repo.commit('master', { 'top.sls': "base:\n  '*':\n    - web\n    - local\n", 'web.sls': 'from-git:\n  test.nop: []\n' });
  mkdirSync(path.join(dir, 'roots'));
  writeFileSync(path.join(dir, 'roots', 'web.sls'), 'from-roots:\n  test.nop: []\n');
  writeFileSync(path.join(dir, 'roots', 'local.sls'), 'local:\n  test.nop: []\n');
  const s = await service({
    data_dir: dir,
    fileserver_backend: ['gitfs', 'roots'],
    gitfs_remotes: [repo.bare],
    file_roots: { base: [path.join(dir, 'roots')] },
    pillar_roots: {},
  });
  const first = await s.compile('m1', {}, { mode: 'highstate', jid: 'j1' });
  t.same(Object.keys(first.high).sort(), ['from-git', 'local']);
  repo.commit('master', { 'web.sls': 'from-git-two:\n  test.nop: []\n' });
  await s.git.update();
  t.same(Object.keys((await s.compile('m2', {}, { mode: 'highstate', jid: 'j1' })).high).sort(), ['from-git', 'local'], 'the job keeps its commit');
  t.same(Object.keys((await s.compile('m1', {}, { mode: 'highstate', jid: 'j2' })).high).sort(), ['from-git-two', 'local']);
  t.not(await s.treeHash('j1'), await s.treeHash('j2'), 'the tree hash a cluster compares tells the commits apart');
});

t.test('git_pillar merges over the pillar roots, with its own top file', async (t) => {
  const dir = tmp(t);
  const repo = new TestRepo(path.join(dir, 'repo'));
  repo.commit('master', { 'top.sls': "base:\n  'm1':\n    - common\n", 'common.sls': 'shared:\n  from: git\n  git_only: 1\n' });
  mkdirSync(path.join(dir, 'pillar'));
  writeFileSync(path.join(dir, 'pillar', 'top.sls'), "base:\n  '*':\n    - roots\n");
  writeFileSync(path.join(dir, 'pillar', 'roots.sls'), 'shared:\n  from: roots\n  roots_only: 1\n');
  const s = await service({ data_dir: dir, pillar_roots: { base: [path.join(dir, 'pillar')] }, ext_pillar: [{ git: [`master ${repo.bare}`] }] });
  t.same((await s.pillar('m1', {})).pillar, { shared: { from: 'git', roots_only: 1, git_only: 1 } });
  t.same((await s.pillar('m2', {})).pillar, { shared: { from: 'roots', roots_only: 1 } }, "the repo's top file targets m1 only");
});

t.test('an unknown backend or ext_pillar kind is refused, not ignored', async (t) => {
  await t.rejects(service({ fileserver_backend: ['svnfs'] }), { code: 'BRINE_ERR_MASTER_CONFIG', message: /svnfs/ });
  await t.rejects(service({ ext_pillar: [{ hiera: '/etc/hiera.yaml' }] }), { code: 'BRINE_ERR_MASTER_CONFIG', message: /'hiera' is not supported/ });
});
