import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectGrains, deriveOs, linuxOsGrains, packageArch, parseOsRelease, parsePythonVersion, parseSystemdVersion, serverId } from '../src/index.js';

/**
 * The grains formulas key their maps on, against what Salt 3007 made of the same inputs
 * (golden/grains/salt-grains.json, recorded by scripts/salt-grains-golden.py with the Salt oracle).
 */
const here = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden', 'grains');
const salt = JSON.parse(readFileSync(path.join(here, 'salt-grains.json'), 'utf8')) as {
  os_release: Record<string, Record<string, unknown>>;
  server_id: Record<string, number>;
  systemd: { systemctl_version: string; grain: unknown };
};

t.test('os grains from os-release, as Salt derives them', async (t) => {
  const files = readdirSync(path.join(here, 'os-release')).sort();
  t.ok(files.length >= 7, `at least 7 recorded os-release files (found ${files.length})`);
  t.same(files, Object.keys(salt.os_release).sort(), "every os-release file has Salt's answer");
  for (const name of files) {
    const got = linuxOsGrains(parseOsRelease(readFileSync(path.join(here, 'os-release', name), 'utf8')));
    t.same(got, salt.os_release[name], name);
  }
});

t.test('os from an ASCII name and from one with other letters: "Linux" cut after any non-word character', async (t) => {
  t.equal(deriveOs('Arch Linux'), 'Arch');
  t.equal(deriveOs('Debian GNU/Linux'), 'Debian');
  t.equal(deriveOs('Foo-LINUX Bar'), 'Foo Bar');
  t.equal(deriveOs('Foo_linux'), 'Foo_linux', 'an underscore is a word character');
  t.equal(deriveOs('Foo2linux'), 'Foo2linux');
  t.equal(deriveOs('Éclair linux'), 'Éclair');
  t.equal(deriveOs('Fooélinux'), 'Fooélinux', 'a letter outside ASCII is a word character too');
  t.equal(deriveOs('Foo—Linux'), 'Foo');
});

t.test("server_id is Salt's hash of the minion id", async (t) => {
  for (const [id, want] of Object.entries(salt.server_id)) t.equal(serverId(id), want, `server_id of '${id}'`);
});

t.test('systemd grain from systemctl --version', async (t) => {
  t.same(parseSystemdVersion(salt.systemd.systemctl_version), salt.systemd.grain);
  t.same(parseSystemdVersion(undefined), { version: 'UNDEFINED', features: '' }, 'systemctl that fails');
});

t.test('pythonversion is sys.version_info', async (t) => {
  t.same(parsePythonVersion('Python 3.11.2\n'), [3, 11, 2, 'final', 0]);
  t.same(parsePythonVersion('Python 3.13.0rc1'), [3, 13, 0, 'candidate', 1]);
  t.equal(parsePythonVersion('not python'), undefined);
});

t.test('osarch is the package architecture', async (t) => {
  t.equal(packageArch('Debian', 'x86_64'), 'amd64');
  t.equal(packageArch('Debian', 'aarch64'), 'arm64');
  t.equal(packageArch('RedHat', 'x86_64'), 'x86_64');
});

t.test('this host: the grains formulas read are there, custom grains win', async (t) => {
  const g = collectGrains('anchor', { role: 'web', os: 'Custom' });
  t.equal(g.id, 'anchor');
  t.equal(g.os, 'Custom', 'a custom grain overrides a collected one');
  t.equal(g.server_id, salt.server_id.anchor);
  t.same(g.saltversioninfo, [3007, 10]);
  t.type(g.init, 'string');
  t.type(g.ip4_interfaces, 'object');
  if (process.platform === 'linux') {
    const rel = linuxOsGrains(parseOsRelease(readFileSync('/etc/os-release', 'utf8')));
    t.equal(g.osfinger, rel.osfinger);
    t.equal(g.osmajorrelease, rel.osmajorrelease);
  }
});
