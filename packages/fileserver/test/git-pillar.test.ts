import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { GitPillar, parseGitPillar } from '../src/index.ts';
import { TestRepo } from './git-repo.ts';

const text = (b: Buffer | undefined) => b?.toString('utf8');

t.test("ext_pillar git entries in Salt's syntax: BRANCH URL, with env and root", async (t) => {
  const specs = parseGitPillar(
    [
      'master https://git.example/pillar.git',
      { 'dev https://git.example/pillar.git': [{ root: 'pillar' }] },
      { 'qa https://git.example/p.git': [{ env: 'base' }, { name: 'qa-pillar' }] },
    ],
    {},
    '/',
  );
  t.same(
    specs.map((s) => [s.branch, s.env, s.remote.root, s.remote.name]),
    [
      ['master', 'base', '', 'master https://git.example/pillar.git'],
      ['dev', 'dev', 'pillar', 'dev https://git.example/pillar.git'],
      ['qa', 'base', '', 'qa-pillar'],
    ],
  );
  t.throws(() => parseGitPillar(['master'], {}, '/'), { code: 'BRINE_ERR_FILESERVER_CONFIG' });
  t.throws(() => parseGitPillar(['__env__ https://x/y.git'], {}, '/'), { message: /__env__/ });
});

t.test('each source is one env at its branch, from its root; a push shows after an update', async (t) => {
  const repo = new TestRepo();
  repo.commit('master', { 'pillar/top.sls': "base:\n  '*': [common]\n", 'pillar/common.sls': 'a: 1\n', README: 'x' });
  repo.commit('dev', { 'pillar/top.sls': "dev:\n  '*': [common]\n", 'pillar/common.sls': 'a: dev\n' });
  const specs = parseGitPillar([{ [`master ${repo.bare}`]: [{ root: 'pillar' }] }, { [`dev ${repo.bare}`]: [{ root: 'pillar' }] }], {}, '/');
  const gp = new GitPillar(specs, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'brine-git-pillar-')) });
  const [base, dev] = await gp.forJob('j');
  t.same([...base!.files.keys()], ['base']);
  t.same([...base!.files.get('base')!.keys()], ['common.sls', 'top.sls']);
  t.same([...dev!.files.keys()], ['dev']);
  t.equal(text(dev!.read('dev', 'common.sls')), 'a: dev\n');
  repo.commit('master', { 'pillar/common.sls': 'a: 2\n' });
  t.ok((await gp.update()).every((s) => s.ok));
  t.equal(text((await gp.current())[0]!.read('base', 'common.sls')), 'a: 2\n');
  t.equal(text((await gp.forJob('j'))[0]!.read('base', 'common.sls')), 'a: 1\n', 'a job keeps its commit');
});
