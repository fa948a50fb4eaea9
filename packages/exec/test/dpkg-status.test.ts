import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, type CommandRunner } from '@brine/core';
import t, { type Test } from 'tap';
import { dpkgStatusLines } from '../src/host/dpkg-status.js';
import { callExec, execContext, execRegistry } from '../src/index.js';

const FORMAT = '${Status} ${Package} ${Version} ${Architecture}\n';
const hasDpkg = existsSync('/var/lib/dpkg/status');

/** dpkg-query's installed lines (want install/hold, status installed), as installedPackages keeps them. */
function query(admin?: string): string[] {
  const out = execFileSync('dpkg-query', [...(admin ? [`--admindir=${admin}`] : []), '--showformat', FORMAT, '-W'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => /^(?:install|hold) \S+ installed /.test(l));
}

function adminWith(t: Test, status: string, journal = false): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-dpkg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'updates'));
  mkdirSync(path.join(dir, 'info'));
  writeFileSync(path.join(dir, 'status'), status);
  if (journal) writeFileSync(path.join(dir, 'updates', '0001'), '');
  return dir;
}

const stanza = (pkg: string, status: string, version: string, arch = 'amd64') =>
  `Package: ${pkg}\nStatus: ${status}\nPriority: optional\nArchitecture: ${arch}\nVersion: ${version}\nDescription: a package\n two lines\n`;

t.test("the status file's installed packages are dpkg-query's", { skip: !hasDpkg && 'no dpkg here' }, async (t) => {
  t.same(dpkgStatusLines(), query(), 'this host');
  const status = [
    stanza('zlib1g', 'install ok installed', '1:1.2.13-1'),
    stanza('bash', 'hold ok installed', '5.2.15-2+b2'),
    stanza('gone', 'deinstall ok config-files', '1.0'),
    stanza('half', 'install ok half-configured', '2.0'),
    stanza('broken', 'install reinstreq installed', '3.0~rc1', 'all'),
  ].join('\n');
  const admin = adminWith(t, status);
  t.same(dpkgStatusLines(admin), query(admin), 'a made-up database: sorted by name, only installed');
  t.same(dpkgStatusLines(admin), [
    'hold ok installed bash 5.2.15-2+b2 amd64',
    'install reinstreq installed broken 3.0~rc1 all',
    'install ok installed zlib1g 1:1.2.13-1 amd64',
  ]);
});

t.test('anything the file alone may not answer is left to dpkg-query', async (t) => {
  t.equal(dpkgStatusLines(adminWith(t, stanza('a', 'install ok installed', '1.0'), true)), undefined, 'a pending journal');
  t.equal(
    dpkgStatusLines(adminWith(t, [stanza('libc6', 'install ok installed', '2.36'), stanza('libc6', 'install ok installed', '2.36', 'i386')].join('\n'))),
    undefined,
    'one name, two architectures',
  );
  t.equal(dpkgStatusLines(adminWith(t, stanza('a', 'install ok installed', '0:1.0'))), undefined, 'a 0: epoch');
  t.equal(dpkgStatusLines(adminWith(t, 'Package: a\nVersion: 1.0\n')), undefined, 'no status');
  t.equal(dpkgStatusLines(path.join(os.tmpdir(), 'no-such-dpkg-brine')), undefined, 'no database');
});

t.test('pkg.version and list_pkgs start no dpkg-query', { skip: !dpkgStatusLines() && 'dpkg here is not the plain case' }, async (t) => {
  const real = createCommandRunner();
  const ran: string[] = [];
  const cmd: CommandRunner = { run: (c, o) => (ran.push(([] as string[]).concat(c).join(' ')), real.run(c, o)) };
  const registry = execRegistry();
  const ctx = execContext({ registry, grains: { osarch: 'amd64' }, direct: true, cmd });
  const bash = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'bash'], { encoding: 'utf8' });
  t.equal(await callExec(registry, 'pkg.version', ['bash'], {}, ctx), bash);
  t.equal(await callExec(registry, 'pkg.version', ['no-such-pkg-brine'], {}, ctx), '');
  t.equal(((await callExec(registry, 'pkg.list_pkgs', [], {}, ctx)) as Record<string, string>).bash, bash);
  t.same(ran, []);
});
