import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { TestRepo } from '../packages/fileserver/test/git-repo.ts';
import { Cluster } from './helpers/cluster.js';
import { freePort } from './helpers/sshd.js';

/**
 * The state tree from git (issue 26): a local bare repository and one served by `git daemon`,
 * branches as saltenvs, a push picked up through the webhook route, a remote gone unreachable
 * that keeps serving its last good commit, and pillar from git.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-gitfs-e2e-'));
const out = path.join(dir, 'out');
mkdirSync(out);
const local = new TestRepo(path.join(dir, 'local'));
const served = new TestRepo(path.join(dir, 'served'));
const managed = (name: string, source: string) => `${name}:\n  file.managed:\n    - name: ${path.join(out, name)}\n    - source: ${source}\n`;
local.commit('master', {
  'top.sls': "base:\n  '*':\n    - web\n    - extra.tool\n",
  'web.sls': managed('web', 'salt://files/motd'),
  'files/motd': 'base one\n',
});
// the dev branch keeps master's top file (its base section is ignored: base has its own)
local.commit('dev', { 'files/motd': 'dev one\n' });
const pillar = new TestRepo(path.join(dir, 'pillar'));
pillar.commit('master', { 'top.sls': "base:\n  '*':\n    - common\n", 'common.sls': 'motd_by: git pillar one\n' });
served.commit('master', { 'tool.sls': managed('tool', 'salt://extra/tool.conf'), 'tool.conf': 'tool one\n' });

let daemon: ChildProcess | undefined;
let cluster: Cluster;
t.before(async () => {
  const port = await freePort();
  daemon = spawn(
    'git',
    ['daemon', '--verbose', '--export-all', '--reuseaddr', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${path.dirname(served.bare)}`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    daemon!.stderr!.on('data', (d: Buffer) => d.toString().includes('Ready to rumble') && resolve());
    daemon!.once('exit', () => reject(new Error('git daemon exited')));
  });
  cluster = new Cluster({
    minions: ['m1'],
    master: {
      fileserver_backend: ['gitfs', 'roots'],
      file_roots: { base: [path.join(dir, 'no-roots')] },
      gitfs_remotes: [local.bare, { [`git://127.0.0.1:${port}/${path.basename(served.bare)}`]: [{ name: 'daemon' }, { mountpoint: 'salt://extra' }] }],
      gitfs_update_interval: 3600,
      ext_pillar: [{ git: [`master file://${pillar.bare}`] }],
      timeout: 60,
    },
  });
  await cluster.start();
});
t.teardown(async () => {
  await cluster?.close();
  daemon?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const read = (name: string) => readFileSync(path.join(out, name), 'utf8');
const apply = async (arg: string[] = [], kwarg: Record<string, unknown> = {}) => {
  const r = await cluster.run('m1', 'state.apply', arg, { kwarg, timeout: 60 });
  return r.returns.m1!;
};

t.test('two branches as two saltenvs, files from both remotes', async (t) => {
  t.equal((await apply()).retcode, 0);
  t.equal(read('web'), 'base one\n');
  t.equal(read('tool'), 'tool one\n', 'the git daemon remote, under its mountpoint');
  t.equal((await apply(['web'], { saltenv: 'dev' })).retcode, 0);
  t.equal(read('web'), 'dev one\n');
});

t.test('a push is served once the webhook route or `brine fileserver update` asks', async (t) => {
  local.commit('master', { 'files/motd': 'base two\n' });
  const hook = await cluster.client.post<{ remotes: Array<{ name: string; ok: boolean; envs: Record<string, string> }> }>('/v1/fileserver/update');
  t.ok(hook.remotes.every((r) => r.ok));
  t.equal((await apply()).retcode, 0);
  t.equal(read('web'), 'base two\n');
  served.commit('master', { 'tool.conf': 'tool two\n' });
  const cli = await cluster.brine(['fileserver', 'update']);
  t.equal(cli.code, 0, cli.stderr);
  t.match(cli.stdout, /gitfs daemon \(git:\/\/127\.0\.0\.1:\d+\/remote\.git\): ok/);
  t.equal((await apply()).retcode, 0);
  t.equal(read('tool'), 'tool two\n');
});

t.test('a remote gone unreachable keeps serving its last good commit, and says so', async (t) => {
  const good = (await cluster.client.get<{ remotes: Array<{ name: string; envs: Record<string, string> }> }>('/v1/fileserver/status')).remotes.find(
    (r) => r.name === 'daemon',
  )!;
  daemon!.kill();
  await new Promise((resolve) => daemon!.once('exit', resolve));
  const since = cluster.master.lines.length;
  const cli = await cluster.brine(['fileserver', 'update']);
  t.equal(cli.code, 1, 'update exits 1 while a remote fails');
  t.match(cli.stdout, /daemon .*FAILING, serving its last good commits/);
  const line = await cluster.master.waitEvent('gitfs_fetch_failed', 5000, since);
  t.equal(line.remote, 'daemon');
  const status = await cluster.client.get<{ remotes: Array<{ name: string; ok: boolean; envs: Record<string, string> }> }>('/v1/fileserver/status');
  const daemonStatus = status.remotes.find((r) => r.name === 'daemon')!;
  t.equal(daemonStatus.ok, false);
  t.same(daemonStatus.envs, good.envs, 'the same commits as before');
  const metrics = await (await fetch(`${cluster.apiUrl}/metrics`, { headers: { authorization: `Bearer ${cluster.client.target.token}` } })).text();
  t.match(metrics, /brine_git_remote_failing\{kind="gitfs",remote="daemon"\} 1/);
  rmSync(path.join(out, 'tool'));
  t.equal((await apply()).retcode, 0);
  t.equal(read('tool'), 'tool two\n', 'still served from the last good commit');
});

t.test('pillar from git: the top file from the repo, a push picked up by the webhook', async (t) => {
  type Pillar = { pillar: Record<string, unknown>; errors: string[] };
  t.equal((await cluster.client.get<Pillar>('/v1/minions/m1/pillar')).pillar.motd_by, 'git pillar one');
  pillar.commit('master', { 'common.sls': 'motd_by: git pillar two\n' });
  const hook = await cluster.client.post<{ remotes: Array<{ kind: string; ok: boolean }> }>('/v1/fileserver/update');
  t.ok(hook.remotes.find((r) => r.kind === 'git_pillar')?.ok);
  t.equal((await cluster.client.get<Pillar>('/v1/minions/m1/pillar')).pillar.motd_by, 'git pillar two');
});
