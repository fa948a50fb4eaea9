import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { brine, type BrineProcess } from './helpers/proc.js';

// `brine minion --check` against a real master: each step printed with ok/WARN/FAIL, in order,
// stopping (exit 1) at the first failure.
const cluster = new Cluster({ autosign: false });
let daemon: BrineProcess;
t.before(async () => {
  await cluster.start();
  daemon = cluster.startMinion('checked');
  await daemon.waitEvent('key_pending');
  const r = await cluster.brine(['key', 'accept', 'checked', '--yes']);
  if (r.code !== 0) throw new Error(r.stderr);
  await daemon.waitEvent('minion_ready');
});
t.teardown(() => cluster.close());

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A minion config sharing the daemon's data dir (its key and recorded fingerprint), with changes. */
function config(name: string, extra: Record<string, unknown>): string {
  const file = path.join(cluster.dir, `check-${name}.yaml`);
  writeFileSync(
    file,
    stringify({ id: 'checked', master: '127.0.0.1', master_port: cluster.port, data_dir: path.join(cluster.dir, 'minion-checked'), ...extra }),
  );
  return file;
}

/** The check's lines as [step, status] pairs. */
const steps = (stdout: string) => [...stdout.matchAll(/^(\S+)\s+(ok|WARN|FAIL)\s/gm)].map((m) => [m[1], m[2]]);

t.test('an accepted minion passes every step, in order, while its daemon stays connected', async (t) => {
  const since = daemon.lines.length;
  const r = await brine(['minion', '--check', '--config', cluster.minionConfigFile('checked')]);
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.same(steps(r.stdout), [
    ['config', 'ok'],
    ['dns', 'ok'],
    ['tcp', 'ok'],
    ['tls', 'ok'],
    ['fingerprint', 'ok'],
    ['key', 'ok'],
  ]);
  t.match(r.stdout, cluster.minionConfigFile('checked'));
  t.match(r.stdout, /TLSv1\.[23]/);
  t.match(r.stdout, cluster.fingerprint);
  t.match(r.stdout, /accepted/);
  t.notOk(
    daemon.lines.slice(since).some((l) => l.event === 'disconnected'),
    'the daemon was not replaced',
  );
});

t.test('unknown options are a warning, not a stop', async (t) => {
  const r = await brine(['minion', '--check', '--config', config('unknown', { master_prot: 1 })]);
  t.equal(r.code, 0, r.stdout);
  t.match(r.stdout, /config\s+WARN\s+.*master_prot \(did you mean master_port\?\)/);
});

t.test('a config that does not parse fails the first step, and nothing else runs', async (t) => {
  const file = path.join(cluster.dir, 'check-bad.yaml');
  writeFileSync(file, 'master: [unclosed\n');
  const r = await brine(['minion', '--check', '--config', file]);
  t.equal(r.code, 1);
  t.same(steps(r.stdout), [['config', 'FAIL']]);
  t.match(r.stdout, file);
  const none = await brine(['minion', '--check'], { BRINE_MINION_CONFIG: '' });
  t.equal(none.code, 1);
  t.same(steps(none.stdout), [['config', 'FAIL']]);
  t.match(none.stdout, '/etc/brine/minion.yaml');
});

t.test('each network failure stops at its step with its cause and a hint', async (t) => {
  const closed = await closedPort();
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['dns', { master: 'no-such-master.invalid' }, 'dns', /does not resolve/],
    ['refused', { master_port: closed }, 'tcp', /refused[\s\S]*hint: Nothing listens/],
    ['api-port', { master_port: cluster.apiPort }, 'tls', /without TLS[\s\S]*hint: This looks like the master's API port/],
    ['finger', { master_finger: Array.from({ length: 32 }, () => '0F').join(':') }, 'fingerprint', /does not match the pinned/],
  ];
  for (const [name, extra, failing, text] of cases) {
    const r = await brine(['minion', '--check', '--config', config(name, extra)]);
    t.equal(r.code, 1, name);
    const got = steps(r.stdout);
    t.same(got[got.length - 1], [failing, 'FAIL'], `${name} fails at ${failing}`);
    t.notOk(
      got.slice(0, -1).some(([, s]) => s === 'FAIL'),
      `${name}: the steps before passed`,
    );
    t.match(r.stdout, text, name);
  }
});

t.test('a key the master has not accepted is named with the command that accepts it', async (t) => {
  const newbie = cluster.startMinion('newbie');
  await newbie.waitEvent('key_pending');
  await newbie.kill();
  const r = await brine(['minion', '--check', '--config', cluster.minionConfigFile('newbie')]);
  t.equal(r.code, 1);
  t.same(steps(r.stdout).pop(), ['key', 'FAIL']);
  t.match(r.stdout, /pending/);
  t.match(r.stdout, 'brine key accept newbie');
  await cluster.brine(['key', 'reject', 'newbie', '--yes']);
  const rejected = await brine(['minion', '--check', '--config', cluster.minionConfigFile('newbie')]);
  t.match(rejected.stdout, /key\s+FAIL\s+rejected/);
  const fresh = await brine(['minion', '--check', '--config', config('fresh', { id: 'fresh', data_dir: path.join(cluster.dir, 'fresh') })]);
  t.equal(fresh.code, 1);
  t.match(fresh.stdout, /fingerprint\s+WARN\s+.*not pinned/);
  t.match(fresh.stdout, /key\s+FAIL\s+unknown: no key/);
});
