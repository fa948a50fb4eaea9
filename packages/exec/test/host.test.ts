import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { callExec, execContext, execRegistry } from '../src/index.js';

const registry = execRegistry();
const ctx = execContext({ registry, grains: { shell: '/bin/bash', osarch: 'amd64' }, direct: true });
const call = (f: string, a: unknown[] = [], k: Record<string, unknown> = {}) => callExec(registry, f, a, k, ctx);

t.test('file.* on real files', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-exec-file-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const f = path.join(dir, 'a.conf');
  writeFileSync(f, 'Listen 80\n#Port 22\n');
  chmodSync(f, 0o640);
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'sub', 'b.conf'), 'x');
  symlinkSync(f, path.join(dir, 'link'));
  t.equal(await call('file.file_exists', [f]), true);
  t.equal(await call('file.file_exists', [dir]), false);
  t.equal(await call('file.file_exists', [], { path: path.join(dir, 'nope') }), false);
  t.equal(await call('file.directory_exists', [dir]), true);
  t.equal(await call('file.contains', [f, '  Listen 80 ']), true, 'text stripped, as Salt');
  t.equal(await call('file.contains', [f, 'Listen 81']), false);
  t.equal(await call('file.contains', [path.join(dir, 'nope'), 'x']), false);
  t.equal(await call('file.contains_regex', [f, '^Port']), false);
  t.equal(await call('file.contains_regex', [f, '^Port', '#']), true, 'lchar stripped first');
  t.equal(await call('file.read', [f]), 'Listen 80\n#Port 22\n');
  await t.rejects(call('file.read', [path.join(dir, 'nope')]), { code: 'BRINE_ERR_EXEC_FAILED', message: /No such file or directory/ });
  t.equal(await call('file.get_hash', [f]), createHash('sha256').update('Listen 80\n#Port 22\n').digest('hex'));
  t.equal(await call('file.get_hash', [f, 'md5']), createHash('md5').update('Listen 80\n#Port 22\n').digest('hex'));
  const st = (await call('file.stats', [path.join(dir, 'link')])) as Record<string, unknown>;
  t.match(st, { type: 'file', mode: '0640', size: 19, target: f, uid: process.getuid!() });
  t.type(st.user, 'string');
  t.match(await call('file.stats', [path.join(dir, 'link')], { follow_symlinks: false }), { type: 'link' });
  await t.rejects(call('file.stats', [path.join(dir, 'nope')]), { message: /Path not found/ });
  t.same(await call('file.find', [dir], { name: '*.conf' }), [f, path.join(dir, 'sub', 'b.conf')].sort());
  t.same(await call('file.find', [dir], { type: 'd' }), [dir, path.join(dir, 'sub')]);
  t.same(await call('file.find', [dir], { name: '*.conf', maxdepth: 1 }), [f]);
  t.same(await call('file.find', [dir], { type: 'f', print: 'name' }), ['a.conf', 'b.conf']);
  t.equal(await call('file.join', ['/etc', 'ssh', 'sshd_config']), '/etc/ssh/sshd_config');
  t.equal(await call('file.join', ['a', '/b', 'c']), '/b/c');
  t.equal(await call('file.basename', ['/etc/hosts']), 'hosts');
  t.equal(await call('file.dirname', ['/etc/ssh/']), '/etc/ssh');
  t.equal(await call('file.dirname', ['/etc']), '/');
});

t.test('user.info, list_users, group.info from the account databases', async (t) => {
  t.same(await call('user.info', ['root']), {
    gid: 0,
    groups: ['root'],
    home: '/root',
    name: 'root',
    passwd: 'x',
    shell: (await call('cmd.run', ['getent passwd root | cut -d: -f7'])) as string,
    uid: 0,
    fullname: 'root',
    roomnumber: '',
    workphone: '',
    homephone: '',
    other: '',
  });
  t.same(await call('user.info', ['no-such-user-brine']), {});
  const users = (await call('user.list_users')) as string[];
  t.ok(users.includes('root'));
  t.same(users, [...users].sort());
  t.match(await call('group.info', ['root']), { name: 'root', gid: 0, passwd: 'x' });
  t.same(await call('group.info', ['no-such-group-brine']), {});
});

t.test('pkg.* through dpkg (this is a Debian host)', async (t) => {
  const bash = (await call('cmd.run', ["dpkg-query -W -f='${Version}' bash"])) as string;
  t.equal(await call('pkg.version', ['bash']), bash);
  t.same(await call('pkg.version', ['bash', 'no-such-pkg-brine']), { bash, 'no-such-pkg-brine': '' });
  const all = (await call('pkg.list_pkgs')) as Record<string, string>;
  t.equal(all.bash, bash);
  t.same(Object.keys(all), Object.keys(all).sort());
  t.equal(await call('pkg.version_cmp', ['1.0', '1.0-1']), -1);
  t.equal(await call('pkg.version_cmp', ['2:1.0', '1:9.0']), 1);
  t.equal(await call('pkg.version_cmp', ['2:1.0', '1:1.0'], { ignore_epoch: true }), 0);
  const cand = /Candidate:\s*(\S+)/.exec((await call('cmd.run', ['apt-cache policy bash'])) as string)![1];
  t.equal(await call('pkg.latest_version', ['bash'], { refresh: false }), cand === bash ? '' : cand, "the candidate, or '' when it is installed");
  t.equal(
    await call('pkg.latest_version', ['bash', 'no-such-pkg-brine'], { refresh: false }),
    cand === bash ? '' : cand,
    'a name apt does not know is dropped, as Salt',
  );
  t.same(await call('pkg.remove', [], { pkgs: [] }), {}, 'nothing to remove changes nothing');
});

t.test('network and status read this host', async (t) => {
  const ifs = (await call('network.interfaces')) as Record<string, Record<string, unknown>>;
  t.match(ifs.lo, { up: true, hwaddr: '00:00:00:00:00:00', inet: [{ address: '127.0.0.1', netmask: '255.0.0.0', broadcast: null, label: 'lo' }] });
  const ips = (await call('network.ip_addrs')) as string[];
  t.notOk(ips.includes('127.0.0.1'), 'loopback left out');
  t.ok(((await call('network.ip_addrs', [], { include_loopback: true })) as string[]).includes('127.0.0.1'));
  t.same(await call('network.ip_addrs', [], { include_loopback: true, cidr: '127.0.0.0/8' }), ['127.0.0.1']);
  const up = (await call('status.uptime')) as Record<string, unknown>;
  t.match(up, { seconds: Number, since_t: Number, days: Number, time: /^\d+:\d\d$/, since_iso: /^\d{4}-\d\d-\d\dT/ });
  t.match(await call('status.loadavg'), { '1-min': Number, '5-min': Number, '15-min': Number });
  t.equal(await call('service.available', ['no-such-service-brine']), false);
  t.equal(await call('service.missing', ['no-such-service-brine']), true);
  t.equal(await call('service.status', ['no-such-service-brine']), false);
});
