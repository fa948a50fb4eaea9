import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { brine } from './support/brine-cli.js';

const cluster = new Cluster({ minions: ['m1'] });
t.before(async () => {
  await cluster.start();
});
t.teardown(() => cluster.close());

t.test('a second master on a busy port says which port and what to do, without a stack', async (t) => {
  const cfg = path.join(cluster.dir, 'second.yaml');
  writeFileSync(cfg, stringify({ interface: '127.0.0.1', port: cluster.port, api_port: 0, data_dir: path.join(cluster.dir, 'second') }));
  const r = await brine(['master', '--config', cfg]);
  t.equal(r.code, 1);
  t.match(
    r.stderr,
    new RegExp(`BRINE_ERR_MASTER_LISTEN: cannot listen for the minion channel on 127\\.0\\.0\\.1:${cluster.port}: another process already listens there`),
  );
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

t.test('jobs show: a malformed or unknown jid is "no such job"', async (t) => {
  const bad = await cluster.brine(['jobs', 'show', 'nope']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /no such job 'nope'/);
  t.notMatch(bad.stderr, /pattern/);
  const unknown = await cluster.brine(['jobs', 'show', '20000101000000000000']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no such job 20000101000000000000/);
});

t.test('jobs list records who ran the job and aligns its fields', async (t) => {
  const run = await cluster.brine(['run', 'm1', 'test.ping']);
  t.equal(run.code, 0, run.stderr);
  const list = await cluster.brine(['jobs', 'list']);
  t.match(list.stdout, new RegExp(`\\n {4}User: {8}${userInfo().username}\\n`));
  t.match(list.stdout, /\n {4}Function: {4}test\.ping\n {4}Arguments: {3}\[\]\n {4}Target: {6}m1\n {4}Target-type: glob\n/);
});

t.test('exec returns and job lists are coloured on request, as Salt colours them', async (t) => {
  const run = await cluster.brine(['run', 'm1', 'test.ping', '--force-color']);
  // Salt's nested colours: keys cyan, numbers and booleans light yellow
  t.match(run.stdout, /^\x1b\[0;36mm1\x1b\[0m:\n {4}\x1b\[1;33mTrue\x1b\[0m\n$/);
  const plain = await cluster.brine(['run', 'm1', 'test.ping']);
  t.equal(plain.stdout, 'm1:\n    True\n');
  const jobs = await cluster.brine(['jobs', 'list', '--force-color']);
  t.match(jobs.stdout, /^\x1b\[0;36m\d{20}:\x1b\[0m\n/);
});

t.test('brine events takes --out too', async (t) => {
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('./helpers/proc.js');
  const child = spawn(process.execPath, [BIN, 'events', '--tag', 'brine/job/*/new', '--count', '1', '--out', 'yaml', '--config', cluster.masterConfig], {
    env: { ...process.env, ...cluster.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  await cluster.run('m1', 'test.ping');
  t.equal(await done, 0);
  t.match(out, /^tag: brine\/job\/\d{20}\/new\ndata:\n {2}jid: /);
  const bad = await cluster.brine(['events', '--out', 'xml']);
  t.match(bad.stderr, /unknown output 'xml'/);
});
