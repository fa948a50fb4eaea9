import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { brine, type BrineProcess } from './helpers/proc.js';

// A master that accepts no key by itself, a tree that writes into a temp dir from salt:// with
// a pillar value, and the minion's daemon running while `brine call` runs as the same minion.
const cluster = new Cluster({ autosign: false });
const states = path.join(cluster.dir, 'states');
const pillar = path.join(cluster.dir, 'pillar');
const target = path.join(cluster.dir, 'target');
mkdirSync(states);
mkdirSync(pillar);
mkdirSync(target);
writeFileSync(path.join(states, 'top.sls'), "base:\n  'callee':\n    - motd\n");
writeFileSync(
  path.join(states, 'motd.sls'),
  `motd:\n  file.managed:\n    - name: ${target}/motd\n    - source: salt://motd.txt\n` +
    `greeting:\n  file.managed:\n    - name: ${target}/greeting\n    - contents: {{ pillar['greeting'] }} from {{ grains['id'] }}\n`,
);
writeFileSync(path.join(states, 'motd.txt'), 'served by the master\n');
writeFileSync(path.join(pillar, 'top.sls'), "base:\n  'callee':\n    - common\n");
writeFileSync(path.join(pillar, 'common.sls'), 'greeting: hello\n');
cluster.setMasterOptions({ file_roots: { base: [states] }, pillar_roots: { base: [pillar] } });

let daemon: BrineProcess;
t.before(async () => {
  await cluster.start();
  daemon = cluster.startMinion('callee');
  await daemon.waitEvent('key_pending');
  const r = await cluster.brine(['key', 'accept', 'callee', '--yes']);
  if (r.code !== 0) throw new Error(r.stderr);
  await daemon.waitEvent('minion_ready');
  await cluster.waitMinionsKnown(['callee']);
});
t.teardown(() => cluster.close());

/** `brine call` with the daemon's own config file. */
const call = (...args: string[]) => brine(['call', ...args, '--config', cluster.minionConfigFile('callee')]);

t.test('state.apply runs here with the master tree, pillar and files, and the master stores the job', async (t) => {
  const r = await call('state.apply', '--show-jid');
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, '', 'nothing on stderr');
  t.equal(readFileSync(path.join(target, 'motd'), 'utf8'), 'served by the master\n');
  t.equal(readFileSync(path.join(target, 'greeting'), 'utf8'), 'hello from callee\n');
  t.match(r.stdout, /^callee:\n/m);
  t.match(r.stdout, /Succeeded: 2 \(changed=2\)/);
  t.match(r.stdout, /Failed:\s+0/);
  const jid = /^jid: (\d+)$/m.exec(r.stdout)?.[1];
  t.ok(jid, 'the jid is shown');
  const job = await cluster.client.get<{ job: { fun: string; user: string; expected: string[] }; returns: Record<string, { success: boolean }> }>(
    `/v1/jobs/${jid}`,
  );
  t.equal(job.job.fun, 'state.apply');
  t.equal(job.job.user, 'brine call');
  t.same(job.job.expected, ['callee']);
  t.equal(job.returns.callee?.success, true, 'the return is stored');
  const st = await cluster.client.get<{ states: Array<{ id: string; result: boolean }> }>(`/v1/jobs/${jid}/states`);
  t.same(st.states.map((s) => [s.id, s.result]).sort(), [
    ['greeting', true],
    ['motd', true],
  ]);
  // a second run changes nothing
  const again = await call('state.apply', '--out', 'json');
  t.equal(again.code, 0, again.stderr);
  const running = (JSON.parse(again.stdout) as { callee: Record<string, { result: boolean; changes: object }> }).callee;
  t.same(
    Object.values(running).map((s) => [s.result, Object.keys(s.changes).length]),
    [
      [true, 0],
      [true, 0],
    ],
  );
});

t.test('the daemon of the same id stays connected through a call and still runs jobs', async (t) => {
  const since = daemon.lines.length;
  const r = await call('test.ping');
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'callee:\n    True\n');
  const job = await cluster.run('callee', 'test.ping');
  t.same(job.returns.callee?.return, true);
  t.notOk(
    daemon.lines.slice(since).some((l) => l.event === 'disconnected'),
    'the daemon was not replaced',
  );
});

t.test('pillar.items and grains.items answer for this minion', async (t) => {
  const p = await call('pillar.items', '--out', 'json');
  t.equal(p.code, 0, p.stderr);
  t.same(JSON.parse(p.stdout), { callee: { greeting: 'hello' } });
  const g = await call('grains.items', '--out', 'json');
  t.equal(g.code, 0, g.stderr);
  const grains = (JSON.parse(g.stdout) as { callee: Record<string, unknown> }).callee;
  t.equal(grains.id, 'callee');
  t.type(grains.os, 'string');
  const nested = await call('grains.item', 'id');
  t.equal(nested.stdout, 'callee:\n    ----------\n    id:\n        callee\n');
});

t.test('a master that cannot be reached fails the call at once, saying why', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const r = await call('test.ping', '--master', `127.0.0.1:${port}`);
  t.equal(r.code, 1);
  t.match(r.stderr, /BRINE_ERR_MINION_CALL_UNREACHABLE/);
  t.match(r.stderr, `127.0.0.1:${port}`);
  t.match(r.stderr, /refused/);
  t.equal(r.stdout, '');
});

t.test('a key the master has not accepted fails the call, naming the command that accepts it', async (t) => {
  const file = path.join(cluster.dir, 'stranger.yaml');
  writeFileSync(file, stringify({ id: 'stranger', master: '127.0.0.1', master_port: cluster.port, data_dir: path.join(cluster.dir, 'stranger') }));
  const r = await brine(['call', 'test.ping', '--config', file]);
  t.equal(r.code, 1);
  t.match(r.stderr, /BRINE_ERR_MINION_CALL_KEY/);
  t.match(r.stderr, /pending/);
  t.match(r.stderr, 'brine key accept stranger');
  await cluster.brine(['key', 'reject', 'stranger', '--yes']);
  const rejected = await brine(['call', 'test.ping', '--config', file]);
  t.equal(rejected.code, 1);
  t.match(rejected.stderr, /rejected this minion's key/);
});
