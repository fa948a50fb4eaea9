import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { REPO } from './helpers/proc.js';
import { releaseArtifacts } from './helpers/release.js';

const hasDpkg = spawnSync('dpkg-deb', ['--version']).status === 0;
let version = '';
let tarball = '';
let deb = '';

// the build may be another test file's, waited for under its lock
t.setTimeout(300_000);
t.before(() => {
  ({ version, tarball, deb } = releaseArtifacts());
});

/** A PATH with the few tools bin/brine uses and no node. */
function pathWithoutNode(dir: string): string {
  const bin = path.join(dir, 'tools');
  mkdirSync(bin);
  for (const tool of ['sh', 'readlink', 'dirname'])
    symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), path.join(bin, tool));
  return bin;
}

function runIn(cwd: string, bin: string, args: string[], PATH: string) {
  return spawnSync(bin, args, { cwd, env: { PATH, HOME: cwd, BRINE_LOG_FORMAT: 'json' }, encoding: 'utf8' });
}

t.test('the tarball runs from anywhere with its own Node', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-tarball-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('tar', ['-C', dir, '-xzf', tarball]);
  const top = path.join(dir, `brine-${version}-linux-x64`);
  const PATH = pathWithoutNode(dir);
  t.not(spawnSync('sh', ['-c', 'command -v node'], { env: { PATH } }).status, 0, 'no node on PATH');
  const v = runIn(dir, path.join(top, 'bin/brine'), ['--version'], PATH);
  t.equal(v.status, 0, v.stderr);
  t.match(v.stdout, new RegExp(`^brine ${version} \\(node 24\\.`));
  t.equal(v.stderr, '', "the CLI's bundle, fresh: no warning");
  const ping = runIn(dir, path.join(top, 'bin/brine'), ['local', 'test.ping', '--id', 'tarball'], PATH);
  t.equal(ping.status, 0, ping.stderr);
  t.match(ping.stdout, /^local:\n\s+True/);
  // built code and production dependencies only
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\n');
  const lib = `brine-${version}-linux-x64/lib/`;
  t.notOk(
    files.some((f) => f.startsWith(`${lib}packages/`) && !f.includes('/node_modules/') && (f.endsWith('.ts') || f.includes('/src/') || f.includes('/test/'))),
    'no sources or tests',
  );
  for (const dev of ['typescript', 'tap', 'eslint', 'prettier', 'playwright-core']) t.notOk(files.includes(`${lib}node_modules/${dev}/`), `no ${dev}`);
  t.ok(files.includes(`${lib}node_modules/better-sqlite3/prebuilds/linux-x64.node`));
  t.ok(files.includes(`${lib}packages/cli/dist/bundle/main.js`) && files.includes(`${lib}packages/cli/dist/bundle/stamp.json`), "the CLI's bundle");
  t.notOk(files.includes(`${lib}node_modules/better-sqlite3/prebuilds/win32-x64.node`), 'other platforms left out');
});

t.test('the Debian package holds the command, configs, units and scripts', { skip: hasDpkg ? false : 'no dpkg-deb' }, async (t) => {
  const info = execFileSync('dpkg-deb', ['--info', deb], { encoding: 'utf8' });
  t.match(info, /Package: brine/);
  t.match(info, /Architecture: amd64/);
  for (const s of ['postinst', 'prerm', 'postrm', 'conffiles']) t.match(info, new RegExp(`\\b${s}\\b`));
  t.equal(execFileSync('dpkg-deb', ['--info', deb, 'conffiles'], { encoding: 'utf8' }), '/etc/brine/master.yaml\n/etc/brine/minion.yaml\n');
  const contents = execFileSync('dpkg-deb', ['--contents', deb], { encoding: 'utf8', maxBuffer: 64 << 20 });
  for (const f of [
    './usr/bin/brine -> ../lib/brine/bin/brine',
    './etc/brine/master.yaml',
    './etc/brine/minion.yaml',
    './var/lib/brine/',
    './lib/systemd/system/brine-master.service',
    './lib/systemd/system/brine-minion.service',
    './usr/lib/brine/node/bin/node',
  ]) {
    t.ok(contents.includes(f), f);
  }
  const unit = readFileSync(path.join(REPO, 'packaging/systemd/brine-master.service'), 'utf8');
  for (const line of [
    'User=brine',
    'ProtectSystem=strict',
    'ReadWritePaths=/var/lib/brine/master',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    'ProtectHome=yes',
  ]) {
    t.match(unit, line);
  }
  t.notMatch(readFileSync(path.join(REPO, 'packaging/systemd/brine-minion.service'), 'utf8'), /^User=/m, 'the minion runs as root');
});

t.test(
  'the Debian package installs into a throwaway root and purges',
  { skip: !hasDpkg ? 'no dpkg' : process.getuid?.() !== 0 ? 'not root' : false },
  async (t) => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'brine-dpkg-root-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(path.join(root, 'var/lib/dpkg/info'), { recursive: true });
    mkdirSync(path.join(root, 'var/lib/dpkg/updates'));
    mkdirSync(path.join(root, 'etc'));
    for (const f of ['var/lib/dpkg/status', 'var/lib/dpkg/available']) writeFileSync(path.join(root, f), '');
    writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\n');
    // maintainer scripts run outside a chroot with $DPKG_ROOT: this machine's own root is never touched
    const dpkg = (...args: string[]) =>
      spawnSync('dpkg', [`--root=${root}`, '--force-script-chrootless', '--force-not-root', '--log=/dev/null', ...args], { encoding: 'utf8' });
    const hostPasswd = readFileSync('/etc/passwd', 'utf8');
    const inst = dpkg('-i', deb);
    t.equal(inst.status, 0, inst.stderr);
    t.match(inst.stdout, /nothing started/);
    t.equal(readFileSync('/etc/passwd', 'utf8'), hostPasswd, "the host's users are untouched");
    const user = /^brine:[^:]*:(\d+):(\d+):/m.exec(readFileSync(path.join(root, 'etc/passwd'), 'utf8'));
    t.ok(user, 'the brine user is made in the root');
    const masterDir = statSync(path.join(root, 'var/lib/brine/master'));
    t.equal(masterDir.uid, Number(user?.[1]), "the master's data belongs to brine");
    t.equal(masterDir.mode & 0o777, 0o700);
    const PATH = pathWithoutNode(root);
    const v = runIn(root, path.join(root, 'usr/bin/brine'), ['--version'], PATH);
    t.equal(v.status, 0, v.stderr);
    t.match(v.stdout, /^brine /);
    const ping = runIn(root, path.join(root, 'usr/bin/brine'), ['local', 'test.ping', '--id', 'deb'], PATH);
    t.match(ping.stdout, /^local:\n\s+True/, ping.stderr);
    const again = dpkg('-i', deb);
    t.equal(again.status, 0, `installing again works: ${again.stderr}`);
    const purge = dpkg('--purge', 'brine');
    t.equal(purge.status, 0, purge.stderr);
    t.notOk(existsSync(path.join(root, 'usr/lib/brine')));
    t.notOk(existsSync(path.join(root, 'var/lib/brine')), 'purge removes the data');
    t.notOk(existsSync(path.join(root, 'etc/brine/master.yaml')), 'purge removes the conffiles');
  },
);

/**
 * The release image (packaging/docker/Dockerfile) as far as this machine can take it: there is no
 * Docker engine here, so its ADD (a local tar.gz is unpacked) and RUN are carried out under a temp
 * root with the image's absolute paths moved into it, and the image's entry point runs.
 */
t.test('the release Dockerfile unpacks the tarball and its entry point runs', async (t) => {
  const file = readFileSync(path.join(REPO, 'packaging/docker/Dockerfile'), 'utf8');
  const lines = file.replace(/\\\n\s*/g, ' ').split('\n');
  t.match(file, /^FROM debian:bookworm-slim$/m, 'a plain Debian base: the tarball carries its Node');
  t.ok(lines.includes('ADD ${TARBALL} /opt/'), 'the tarball named by the build argument, unpacked into /opt');
  const run = lines.filter((l) => l.startsWith('RUN ')).map((l) => l.slice(4));
  t.equal(run.length, 1);
  const entry = /^ENTRYPOINT \["([^"]+)"\]$/m.exec(file)?.[1];
  t.equal(entry, '/usr/bin/brine');
  const root = mkdtempSync(path.join(os.tmpdir(), 'brine-image-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const d of ['opt', 'usr/bin', 'etc', 'var/lib']) mkdirSync(path.join(root, d), { recursive: true });
  execFileSync('tar', ['-C', path.join(root, 'opt'), '-xzf', tarball]);
  const script = run[0]!.replace(/(^|[\s;])\/(opt|usr\/bin|etc|var)\b/g, `$1${root}/$2`);
  t.notMatch(script, /(^|[\s;])\/(opt|usr|etc|var)\//, 'every absolute path of the image is moved under the temp root');
  const PATH = `${path.join(root, 'usr/bin')}:${pathWithoutNode(root)}:/usr/bin:/bin`;
  const built = spawnSync('sh', ['-c', script], { env: { PATH }, encoding: 'utf8' });
  t.equal(built.status, 0, built.stderr);
  t.match(built.stdout, new RegExp(`^brine ${version} \\(node 24\\.`), 'the RUN step checks the command');
  t.ok(statSync(path.join(root, 'var/lib/brine/minion')).isDirectory());
  const v = runIn(root, path.join(root, entry!.slice(1)), ['--version'], pathWithoutNode(path.join(root, 'etc')));
  t.equal(v.status, 0, v.stderr);
});
