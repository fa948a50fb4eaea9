import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { FileRoots, FileTrees, GitFs, parseRemote, redactGitUrl, type RemoteStatus } from '../src/index.ts';
import { TestRepo } from './git-repo.ts';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'brine-gitfs-cache-'));
const text = (b: Buffer | undefined) => b?.toString('utf8');

t.test('branches and tags are saltenvs, master is base; a job keeps its commit while a push lands', async (t) => {
  const repo = new TestRepo();
  repo.commit('master', { 'top.sls': 'base:\n  "*": [web]\n', 'web.sls': 'one' });
  repo.commit('dev', { 'web.sls': 'dev one' });
  repo.git('tag', 'v1');
  repo.git('push', '--quiet', repo.bare, 'v1');
  const fs = new GitFs([parseRemote(`file://${repo.bare}`, {}, 'gitfs_remotes', '/')], { cacheDir: tmp() });
  const snap = await fs.forJob('job1');
  t.same([...snap.files.keys()].sort(), ['base', 'dev', 'v1']);
  t.equal(text(snap.read('base', 'web.sls')), 'one');
  t.equal(text(snap.read('dev', 'web.sls')), 'dev one');
  t.equal(text(snap.read('v1', 'web.sls')), 'dev one');
  t.match(snap.lookup('base', 'web.sls')!.abs, /@[0-9a-f]{12}:web\.sls$/);

  repo.commit('master', { 'web.sls': 'two' });
  const before = await fs.current();
  t.equal(text(before.read('base', 'web.sls')), 'one', 'nothing changes before an update');
  const status = await fs.update();
  t.equal(status[0]!.ok, true);
  t.equal(text((await fs.current()).read('base', 'web.sls')), 'two');
  t.equal(text((await fs.forJob('job1')).read('base', 'web.sls')), 'one', 'the job keeps the commit it started with');
});

t.test('root, mountpoint, base and the saltenv mapping, per remote and global', async (t) => {
  const repo = new TestRepo();
  repo.commit('master', { 'salt/a.sls': 'master a', 'other.txt': 'x' });
  repo.commit('develop', { 'salt/a.sls': 'develop a' });
  repo.commit('main', { 'salt/a.sls': 'main a' });
  const entry = { [`file://${repo.bare}`]: [{ name: 'states' }, { root: 'salt' }, { mountpoint: 'salt://formulas/x' }, { base: 'develop' }] };
  const spec = parseRemote(entry, { saltenv: [{ prod: [{ ref: 'master' }] }] }, 'gitfs_remotes', '/');
  t.equal(spec.name, 'states');
  const fs = new GitFs([spec], { cacheDir: tmp() });
  const snap = await fs.current();
  t.same([...snap.files.get('base')!.keys()], ['formulas/x/a.sls']);
  t.equal(text(snap.read('base', 'formulas/x/a.sls')), 'develop a');
  t.equal(text(snap.read('prod', 'formulas/x/a.sls')), 'master a');
  t.equal(text(snap.read('master', 'formulas/x/a.sls')), 'master a', 'a branch that is not the base is an env of its own name');
  t.equal(text(snap.read('main', 'formulas/x/a.sls')), 'main a');
});

t.test('with no master branch, main is base', async (t) => {
  const repo = new TestRepo();
  repo.commit('main', { 'a.sls': 'main' });
  const fs = new GitFs([parseRemote(repo.bare, {}, 'gitfs_remotes', '/')], { cacheDir: tmp() });
  t.equal(text((await fs.current()).read('base', 'a.sls')), 'main');
});

t.test('a remote that fails to fetch keeps serving its last good commit, and says so', async (t) => {
  const repo = new TestRepo();
  const good = repo.commit('master', { 'a.sls': 'good' });
  const failures: RemoteStatus[] = [];
  const fs = new GitFs([parseRemote(`file://${repo.bare}`, {}, 'gitfs_remotes', '/')], { cacheDir: tmp(), onFailure: (s) => failures.push(s) });
  t.equal(text((await fs.current()).read('base', 'a.sls')), 'good');
  renameSync(repo.bare, `${repo.bare}.gone`);
  const [st] = await fs.update();
  t.equal(st!.ok, false);
  t.match(st!.error, /BRINE_ERR_FILESERVER_GIT|fetch/);
  t.equal(st!.envs.base, good);
  t.equal(failures.length, 1);
  t.equal(text((await fs.current()).read('base', 'a.sls')), 'good');
  renameSync(`${repo.bare}.gone`, repo.bare);
  t.equal((await fs.update())[0]!.ok, true, 'back once the remote is');
});

t.test('gitfs before roots: the first backend holding a path serves it', async (t) => {
  const repo = new TestRepo();
  repo.commit('master', { 'a.sls': 'from git' });
  const dir = tmp();
  mkdirSync(path.join(dir, 'base'));
  writeFileSync(path.join(dir, 'base', 'a.sls'), 'from roots');
  writeFileSync(path.join(dir, 'base', 'b.sls'), 'only in roots');
  const git = new GitFs([parseRemote(repo.bare, {}, 'gitfs_remotes', '/')], { cacheDir: tmp() });
  const trees = new FileTrees([git, new FileRoots({ base: [path.join(dir, 'base')] })]);
  const snap = await trees.forJob('j');
  t.equal(text(snap.read('base', 'a.sls')), 'from git');
  t.equal(text(snap.read('base', 'b.sls')), 'only in roots');
  t.equal(snap.tree.read('base', 'a.sls'), 'from git');
});

t.test('credentials come from files only; URLs are shown without passwords', async (t) => {
  t.throws(() => parseRemote('https://bob:s3cret@git.example/x.git', {}, 'gitfs_remotes', '/'), {
    code: 'BRINE_ERR_FILESERVER_CONFIG',
    message: /bob:\*\*\*@/,
  });
  t.throws(() => parseRemote('https://bob:s3cret@git.example/x.git', {}, 'gitfs_remotes', '/'), { message: /^(?!.*s3cret)/s });
  t.throws(() => parseRemote({ 'https://git.example/x.git': [{ password: 'x' }] }, {}, 'gitfs_remotes', '/'), { message: /password_file/ });
  t.equal(redactGitUrl('fatal: unable to access https://u:tok@h/x.git/'), 'fatal: unable to access https://u:***@h/x.git/');
  const spec = parseRemote(
    { 'https://git.example/x.git': [{ user: 'bob' }, { password_file: 'pw' }, { ssl_verify: false }] },
    {},
    'gitfs_remotes',
    '/etc/brine',
  );
  t.equal(spec.passwordFile, '/etc/brine/pw');
  t.equal(spec.sslVerify, false);
});

t.test('HTTPS-style auth: the password comes from password_file and shows nowhere', async (t) => {
  const repo = new TestRepo();
  repo.commit('master', { 'a.sls': 'behind auth' });
  const { httpGit } = await import('./http-git.ts');
  const { url, server } = await httpGit(path.dirname(repo.bare), 'bob', 's3cret-pw');
  t.teardown(() => server.close());
  const remoteUrl = `${url}/${path.basename(repo.bare)}`;
  const pw = path.join(tmp(), 'pw');
  writeFileSync(pw, 's3cret-pw\n', { mode: 0o600 });
  const denied = new GitFs([parseRemote(remoteUrl, {}, 'gitfs_remotes', '/')], { cacheDir: tmp() });
  const [no] = await denied.update();
  t.equal(no!.ok, false, 'no credentials: refused, and no prompt hangs the fetch');
  const fs = new GitFs([parseRemote({ [remoteUrl]: [{ user: 'bob' }, { password_file: pw }] }, {}, 'gitfs_remotes', '/')], { cacheDir: tmp() });
  const [st] = await fs.update();
  t.equal(st!.ok, true, st!.error);
  t.equal(text((await fs.current()).read('base', 'a.sls')), 'behind auth');
  t.notMatch(JSON.stringify([st, no, fs.status()]), /s3cret/);
});
