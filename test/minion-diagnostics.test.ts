import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { brine, BrineProcess, until, type LogLine } from './helpers/proc.js';

const cluster = new Cluster();
t.before(() => cluster.start());
t.teardown(() => cluster.close());

/** A port nothing listens on (taken and released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const unreachable = (l: LogLine) => l.event === 'master_unreachable' && l.level === 40;

t.test('a minion pointed at a closed port warns at the default level, naming the address and the refusal', async (t) => {
  const port = await closedPort();
  const m = cluster.startMinion('closed-port', { master_port: port, log_level: 'info' });
  const first = await m.waitFor(unreachable, 'master_unreachable', 10_000);
  t.match(first.msg, `127.0.0.1:${port}`);
  t.match(first.msg, /refused/);
  t.match(first.msg, /is the master running/);
  // it keeps trying, and says so again on the next try
  const again = await m.waitFor(unreachable, 'second master_unreachable', 10_000, m.lines.indexOf(first) + 1);
  t.match(again.msg, /Retrying in/);
  await m.kill();
});

t.test("a minion pointed at the master's API port is told it is the API port", async (t) => {
  const m = cluster.startMinion('api-port', { master_port: cluster.apiPort, log_level: 'info' });
  const line = await m.waitFor(unreachable, 'master_unreachable', 10_000);
  t.match(line.msg, `127.0.0.1:${cluster.apiPort}`);
  t.match(line.msg, /API port/);
  t.match(line.msg, /minion port is the master's `port:`/);
  await m.kill();
});

t.test('a minion pointed at a name that does not resolve says so', async (t) => {
  const m = cluster.startMinion('no-dns', { master: 'no-such-master.invalid', log_level: 'info' });
  const line = await m.waitFor(unreachable, 'master_unreachable', 10_000);
  t.match(line.msg, /no-such-master\.invalid/);
  t.match(line.msg, /does not resolve/);
  await m.kill();
});

t.test('brine minion with no config refuses, naming the paths it looked for, and creates nothing', async (t) => {
  const r = await brine(['minion'], { BRINE_MINION_CONFIG: '' });
  t.equal(r.code, 1, r.stderr);
  t.match(r.stderr, /BRINE_ERR_CLI_NO_CONFIG/);
  t.match(r.stderr, /\/etc\/brine\/minion\.yaml/);
  t.match(r.stderr, /--master/);
  if (!existsSync('/var/lib/brine')) t.notOk(existsSync('/var/lib/brine'), 'no /var/lib/brine made');
});

t.test("Salt's log level names and unknown Salt options do not stop the minion", async (t) => {
  const m = cluster.startMinion('salt-habits', { log_level: 'warning', ipc_mode: 'ipc', master_prot: 4506, grains_refresh_every: 0 });
  const line = await m.waitFor((l) => l.event === 'config_unknown_options', 'config_unknown_options', 10_000);
  t.equal(line.level, 40);
  t.match(line.msg, /ipc_mode/);
  t.match(line.msg, /grains_refresh_every/);
  t.match(line.msg, /master_prot \(did you mean master_port\?\)/);
  t.equal(m.lines.filter((l) => l.event === 'config_unknown_options').length, 1, 'one warning for all of them');
  await cluster.waitMinionsKnown(['salt-habits']);
  const r = await cluster.run('salt-habits', 'test.ping');
  t.same(r.returns['salt-habits']?.return, true);
  // at warning level, info lines are not written
  t.notOk(m.lines.some((l) => l.level === 30));
  await m.kill();
});

for (const level of ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warn', 'error', 'critical', 'quiet']) {
  t.test(`log_level: ${level} is read as Salt's`, async (t) => {
    const file = path.join(cluster.dir, `level-${level}.yaml`);
    // an unknown id character makes the config fail after the level is read: nothing connects
    writeFileSync(file, stringify({ id: 'bad id', master: '127.0.0.1', log_level: level }));
    const r = await brine(['minion', '--config', file]);
    t.match(r.stderr, /not a valid minion id/);
    t.notMatch(r.stderr, /log_level|INTERNAL/);
  });
}

t.test('a log level no one knows is a config error naming the choices', async (t) => {
  const file = path.join(cluster.dir, 'level-bad.yaml');
  writeFileSync(file, stringify({ master: '127.0.0.1', log_level: 'verbose' }));
  const r = await brine(['minion', '--config', file]);
  t.equal(r.code, 1);
  t.match(r.stderr, /BRINE_ERR_MINION_CONFIG/);
  t.match(r.stderr, /log_level 'verbose'/);
  t.match(r.stderr, /warning/);
});

t.test('security-relevant Salt options Brine does not implement are refused, all at once', async (t) => {
  const file = path.join(cluster.dir, 'secure.yaml');
  writeFileSync(file, stringify({ master: '127.0.0.1', disable_modules: ['cmd'], user: 'salt', ipc_mode: 'ipc' }));
  const r = await brine(['minion', '--config', file]);
  t.equal(r.code, 1);
  t.match(r.stderr, /BRINE_ERR_MINION_CONFIG/);
  t.match(r.stderr, /disable_modules/);
  t.match(r.stderr, /user/);
  const mfile = path.join(cluster.dir, 'secure-master.yaml');
  writeFileSync(mfile, stringify({ data_dir: path.join(cluster.dir, 'm2'), publisher_acl: { fred: ['test.*'] }, worker_threads: 5 }));
  const rm = await brine(['master', '--config', mfile]);
  t.equal(rm.code, 1);
  t.match(rm.stderr, /BRINE_ERR_MASTER_CONFIG/);
  t.match(rm.stderr, /publisher_acl/);
  t.notMatch(rm.stderr, /worker_threads/);
});

t.test("a master with Salt's log_level: warning and Salt options it does not know starts", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-saltcfg-'));
  const [port, apiPort] = [await closedPort(), await closedPort()];
  const file = path.join(dir, 'master.yaml');
  writeFileSync(
    file,
    stringify({
      interface: '127.0.0.1',
      port,
      api_port: apiPort,
      data_dir: path.join(dir, 'data'),
      log_level: 'warning',
      worker_threads: 5,
      ret_port: 4506,
      keysize: 2048,
    }),
  );
  const m = new BrineProcess('salt-master', ['master', '--config', file]);
  t.teardown(() => m.kill());
  const line = await m.waitFor((l) => l.event === 'config_unknown_options', 'config_unknown_options', 10_000);
  t.match(line.msg, /worker_threads, ret_port, keysize/);
  await until(
    async () => ((await fetch(`http://127.0.0.1:${apiPort}/v1/minions`).catch(() => undefined))?.status === 401 ? true : undefined),
    'the API',
    20_000,
  );
  t.ok(m.running);
  t.notOk(
    m.lines.some((l) => l.level === 30),
    'nothing at info level',
  );
});

/** A second master that accepts no key by itself: the key states an operator has to act on. */
const manual = new Cluster({ autosign: false });
t.before(() => manual.start());
t.teardown(() => manual.close());

/** A line a minion logs at warning level or above (40 and up). */
const warned = (event: string) => (l: LogLine) => l.event === event && (l.level as number) >= 40;

t.test('a minion pinned to another master fingerprint says so, naming both fingerprints', async (t) => {
  const wrong = Array.from({ length: 32 }, () => 'AB').join(':');
  const m = cluster.startMinion('wrong-finger', { master_finger: wrong, log_level: 'info' });
  const line = await m.waitFor(warned('master_finger_mismatch'), 'master_finger_mismatch', 10_000);
  t.match(line.msg, `127.0.0.1:${cluster.port}`);
  t.match(line.msg, wrong);
  t.match(line.msg, cluster.fingerprint);
  t.match(line.msg, /update master_finger/);
  await m.kill();
});

t.test('a minion whose key waits for acceptance warns, with the command that accepts it and its fingerprint', async (t) => {
  const m = manual.startMinion('wait-accept', { log_level: 'warning' });
  const line = await m.waitFor(warned('key_pending'), 'key_pending at warning level', 10_000);
  t.match(line.msg, `127.0.0.1:${manual.port}`);
  t.match(line.msg, /pending/);
  t.match(line.msg, 'brine key accept wait-accept');
  t.match(line.msg, line.fingerprint as string);
  await m.kill();
});

t.test('a minion whose key was rejected says so, with what to do on the master', async (t) => {
  const m = manual.startMinion('turned-down', { log_level: 'warning' });
  await m.waitFor(warned('key_pending'), 'key_pending', 10_000);
  const r = await manual.brine(['key', 'reject', 'turned-down', '--yes']);
  t.equal(r.code, 0, r.stderr);
  const line = await m.waitFor(warned('key_rejected'), 'key_rejected', 10_000);
  t.match(line.msg, `127.0.0.1:${manual.port}`);
  t.match(line.msg, /rejected/);
  t.match(line.msg, 'brine key delete turned-down');
  await m.kill();
});
