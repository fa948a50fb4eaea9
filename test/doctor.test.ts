import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { brine } from './helpers/proc.js';

// `brine doctor` on the master's host: each step printed with ok/WARN/FAIL, stopping (exit 1)
// at the first failure.
const cluster = new Cluster();
const states = path.join(cluster.dir, 'states');
mkdirSync(states);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*': []\n");
cluster.setMasterOptions({ file_roots: { base: [states] }, pillar_roots: { base: [path.join(cluster.dir, 'no-pillar')] } });
t.before(() => cluster.start());
t.teardown(() => cluster.close());

const steps = (stdout: string) => [...stdout.matchAll(/^(\S+(?: \S+)?)\s+(ok|WARN|FAIL)\s/gm)].map((m) => [m[1], m[2]]);

t.test('a running master passes: its ports listen, its store checks, its workers are confined', async (t) => {
  // the master's own config with the ports it was given (the helper lets the kernel pick them)
  const file = path.join(cluster.dir, 'master-bound.yaml');
  writeFileSync(
    file,
    readFileSync(cluster.masterConfig, 'utf8')
      .replace(/^port: 0$/m, `port: ${cluster.port}`)
      .replace(/^api_port: 0$/m, `api_port: ${cluster.apiPort}`),
  );
  const r = await brine(['doctor', '--config', file]);
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.same(steps(r.stdout), [
    ['config', 'ok'],
    ['data dir', 'ok'],
    ['permissions', 'ok'],
    ['store', 'ok'],
    ['minion port', 'ok'],
    ['api port', 'ok'],
    ['workers', 'ok'],
    ['file roots', 'ok'],
    ['pillar roots', 'WARN'],
  ]);
  t.match(r.stdout, /held by a running master/);
  t.match(r.stdout, `127.0.0.1:${cluster.port} listening`);
  t.match(r.stdout, `127.0.0.1:${cluster.apiPort} listening`);
  t.match(r.stdout, /quick_check ok/);
  t.match(r.stdout, /top\.sls found/);
  t.match(r.stdout, /pillar roots\s+WARN\s+missing: base: .*no-pillar/);
});

t.test('a port another process holds fails, when no master runs on the data dir', async (t) => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const port = (blocker.address() as net.AddressInfo).port;
  const file = path.join(cluster.dir, 'other-master.yaml');
  writeFileSync(file, stringify({ interface: '127.0.0.1', port, api_port: 0, data_dir: path.join(cluster.dir, 'other'), file_roots: { base: [states] } }));
  const r = await brine(['doctor', '--config', file]);
  t.equal(r.code, 1, r.stdout);
  t.same(steps(r.stdout).pop(), ['minion port', 'FAIL']);
  t.match(r.stdout, /another process listens there/);
  t.match(r.stdout, /hint: .*ss -ltnp/);
});

t.test('secrets readable by others fail the permissions step', async (t) => {
  const file = path.join(cluster.dir, 'loose.yaml');
  const dir = path.join(cluster.dir, 'loose');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  writeFileSync(file, stringify({ interface: '127.0.0.1', port: 0, api_port: 0, data_dir: dir }));
  const r = await brine(['doctor', '--config', file]);
  t.equal(r.code, 1, r.stdout);
  t.same(steps(r.stdout).pop(), ['permissions', 'FAIL']);
  t.match(r.stdout, /readable by group or others: .*loose \(755\)/);
});

t.test('a config that does not parse fails first', async (t) => {
  const file = path.join(cluster.dir, 'bad-master.yaml');
  writeFileSync(file, 'port: [\n');
  const r = await brine(['doctor', '--config', file]);
  t.equal(r.code, 1);
  t.same(steps(r.stdout), [['config', 'FAIL']]);
  t.match(r.stdout, /BRINE_ERR_MASTER_CONFIG/);
});
