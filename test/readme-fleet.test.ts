import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { REPO } from './helpers/proc.js';
import { releaseArtifacts } from './helpers/release.js';
import { freePort, Sshd, sshdUnavailable, stopByPidFile } from './helpers/sshd.js';

// Runs every command of the README's "Install on a fleet" section, in order, on this machine:
// the master from the tarball, and web1 and web2 as two prefixes behind one real sshd on loopback.
// What is replaced, and nothing else:
//  - every absolute path (/opt/brine, /etc/brine, /srv/salt, /usr/local/bin, /etc/motd) and
//    ~/.ssh/known_hosts by the same path under a temp dir, and $BRINE_MASTER_CONFIG pointing at
//    the temp /etc/brine/master.yaml (brine's built-in default path cannot be moved);
//  - the master config gets the temp data_dir, 127.0.0.1 and free ports appended;
//  - `web1`/`web2` become `127.0.0.1 -p PORT` for ssh-keyscan and `web1=root@127.0.0.1:PORT` for
//    bootstrap, which also gets --prefix/--data-dir under the temp dir and the client key;
//  - the `brine master` block runs in the background until the master says it is ready.
const unavailable = sshdUnavailable();
t.plan(1);
// the release build (shared with release.test.ts, under a lock) may come first
t.setTimeout(300_000);
t.test("the README's 'Install on a fleet' runs as written", { skip: unavailable ?? false }, async (t) => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const section = /\n## Install on a fleet\n([\s\S]*?)\n## /.exec(readme)?.[1];
  if (!section) throw new Error('README has no "Install on a fleet" section');
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  t.equal(blocks.length, 3, 'install, start the master, bootstrap and apply');
  t.equal(blocks[1]!.trim(), 'brine master');

  const { tarball, version } = releaseArtifacts();
  const T = mkdtempSync(path.join(os.tmpdir(), 'brine-readme-fleet-'));
  const sshd = new Sshd(path.join(T, 'sshd'));
  const daemons: { master?: ReturnType<typeof spawn> } = {};
  t.teardown(async () => {
    for (const id of ['web1', 'web2']) stopByPidFile(path.join(T, 'hosts', id, 'var/minion.pid'));
    const master = daemons.master;
    if (master && master.exitCode === null) {
      const gone = new Promise((r) => master.once('exit', r));
      master.kill('SIGTERM');
      await gone;
    }
    await sshd.close();
    rmSync(T, { recursive: true, force: true });
  });
  await sshd.start();
  symlinkSync(tarball, path.join(T, path.basename(tarball)));
  const [port, apiPort] = [await freePort(), await freePort()];

  const moved = (text: string) =>
    text
      .replace(/(^|[\s[])(\/opt\/brine|\/etc\/brine|\/srv\/salt|\/etc\/motd)/gm, `$1${T}$2`)
      .replaceAll('/usr/local/bin', `${T}/bin`)
      .replaceAll('~/.ssh/known_hosts', `${T}/known_hosts`)
      .replace(/ +# .*$/gm, '');
  const install = moved(blocks[0]!).replace(
    `  base: [${T}/srv/salt]\nEOF`,
    `  base: [${T}/srv/salt]\ndata_dir: ${T}/var/lib/brine/master\ninterface: 127.0.0.1\nport: ${port}\napi_port: ${apiPort}\nEOF`,
  );
  const target = `root@127.0.0.1:${sshd.port}`;
  const fleet = moved(blocks[2]!)
    .replace('ssh-keyscan web1 web2', `ssh-keyscan -p ${sshd.port} 127.0.0.1`)
    .replace('root@web1 root@web2', `web1=${target} web2=${target} --prefix ${T}/hosts/{id} --data-dir ${T}/hosts/{id}/data -i ${sshd.clientKey}`)
    .replace('brine bootstrap', `brine bootstrap -o UserKnownHostsFile=${T}/known_hosts`);
  // a path left unmoved would touch this machine: refuse to run rather than find out
  for (const script of [install, fleet]) t.notMatch(script, /(^|[\s[])\/(opt|etc|srv|usr|var)\//m, 'every path is under the temp dir');
  t.match(install, `${T}/var/lib/brine/master`, 'the master config was extended');
  t.match(fleet, 'web1=root@127.0.0.1', 'the hosts were replaced');
  writeFileSync(path.join(T, 'known_hosts'), '');

  const { BRINE_API_URL: _url, BRINE_API_TOKEN: _token, ...base } = process.env;
  const env = { ...base, PATH: `${T}/bin:${process.env.PATH}`, BRINE_MASTER_CONFIG: `${T}/etc/brine/master.yaml` };
  mkdirSync(path.join(T, 'bin'));
  const sh = (script: string) => spawnSync('sh', ['-ec', script], { cwd: T, env, encoding: 'utf8' });

  const a = sh(install);
  t.equal(a.status, 0, a.stderr);
  t.equal(spawnSync(`${T}/bin/brine`, ['--version'], { encoding: 'utf8' }).stdout.split(' ')[1], version);

  // its log is JSON lines when stderr is not a terminal: wait for the one that says it is ready
  const master = spawn('sh', ['-c', `exec ${blocks[1]!.trim()}`], { cwd: T, env, stdio: ['ignore', 'ignore', 'pipe'] });
  daemons.master = master;
  await new Promise<void>((resolve, reject) => {
    let log = '';
    master.stderr!.setEncoding('utf8').on('data', (c: string) => {
      log += c;
      if (log.includes('"master_ready"')) resolve();
    });
    master.once('exit', (code) => reject(new Error(`the master exited (${code}):\n${log}`)));
  });

  const lines = fleet.split('\n').filter((l) => l.trim());
  t.equal(lines.length, 3);
  const [scan, boot, apply] = lines.map(sh);
  t.equal(scan!.status, 0, scan!.stderr);
  t.match(readFileSync(path.join(T, 'known_hosts'), 'utf8'), `[127.0.0.1]:${sshd.port} ssh-ed25519`);
  t.equal(boot!.status, 0, `${boot!.stdout}\n${boot!.stderr}`);
  t.match(
    boot!.stdout,
    /web1: installed brine .*connected as web1\nweb2: installed brine .*connected as web2\n|web2: installed brine .*\nweb1: installed brine .*\n/,
  );
  t.equal(apply!.status, 0, `${apply!.stdout}\n${apply!.stderr}`);
  t.match(apply!.stdout, /^web1:$/m);
  t.match(apply!.stdout, /^web2:$/m);
  t.equal(readFileSync(path.join(T, 'etc/motd'), 'utf8').trim(), 'This host is managed by Brine.');
});
