import { createHash, createPublicKey } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { BrineProcess, until } from './helpers/proc.js';

type Keys = { accepted: string[]; pending: string[]; denied: string[]; keys: Array<{ minion: string; state: string; fingerprint: string }> };

const cluster = new Cluster({ autosign: false });
const states = path.join(cluster.dir, 'states');
mkdirSync(states);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - noop\n");
writeFileSync(path.join(states, 'noop.sls'), 'noop:\n  test.nop: []\n');
cluster.setMasterOptions({ file_roots: { base: [states] } });
let impostor: BrineProcess | undefined;
t.before(() => cluster.start());
t.teardown(async () => {
  await impostor?.kill('SIGTERM');
  await cluster.close();
});

function fingerprintOf(pubFile: string): string {
  const der = createPublicKey(readFileSync(pubFile)).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
}

/** A second real minion process with the same id, its own data dir and so its own key. */
function startImpostor(id: string): BrineProcess {
  const dir = path.join(cluster.dir, `impostor-${id}`);
  const file = path.join(cluster.dir, `impostor-${id}.yaml`);
  writeFileSync(
    file,
    stringify({ id, master: '127.0.0.1', master_port: cluster.port, data_dir: dir, acceptance_wait_time: 0.2, recon_default: 0.1, recon_max: 0.5 }),
  );
  return new BrineProcess(`impostor-${id}`, ['minion', '--config', file]);
}

t.test('a second key for a pending id is denied; accept takes the first key and shows its fingerprint', async (t) => {
  const real = cluster.startMinion('web9');
  const pending = await real.waitEvent('key_pending');
  const realFinger = fingerprintOf(path.join(cluster.dir, 'minion-web9', 'pki', 'minion.pub'));
  t.equal(pending.fingerprint, realFinger, 'the minion shows the fingerprint the operator compares');
  impostor = startImpostor('web9');
  const first = await impostor.waitFor((l) => l.event === 'key_pending' || l.event === 'key_denied', 'the impostor hears its key state');
  const impostorFinger = fingerprintOf(path.join(cluster.dir, 'impostor-web9', 'pki', 'minion.pub'));
  t.equal(first.event, 'key_denied', 'the impostor is denied, not pending in place of the real key');

  const keys = await cluster.client.get<Keys>('/v1/keys');
  t.same(
    keys.keys
      .filter((k) => k.minion === 'web9')
      .map((k) => [k.state, k.fingerprint])
      .sort(),
    [
      ['denied', impostorFinger],
      ['pending', realFinger],
    ],
    'the first key stays pending, the second is recorded as denied',
  );
  const list = await cluster.brine(['key', 'list']);
  t.match(list.stdout, /Denied Keys:\nweb9\n/);
  t.match(list.stdout, /Unaccepted Keys:\nweb9\n/);
  const finger = await cluster.brine(['key', 'finger', 'web9']);
  t.match(finger.stdout, `Denied Keys:\nweb9:  ${impostorFinger}\n`);
  t.match(finger.stdout, `Unaccepted Keys:\nweb9:  ${realFinger}\n`);

  const acc = await cluster.brine(['key', 'accept', 'web9', '--yes']);
  t.equal(acc.code, 0, acc.stderr);
  t.match(acc.stdout, `Key for minion web9 accepted. Fingerprint: ${realFinger}\n`);
  t.notMatch(acc.stdout, impostorFinger);

  await real.waitEvent('minion_ready');
  const since = impostor.lines.length;
  await impostor.waitEvent('key_denied', undefined, since);
  t.notOk(
    impostor.lines.some((l) => l.event === 'minion_ready'),
    'the impostor is never welcomed',
  );
  await cluster.waitMinionsKnown(['web9']);
  const ping = await cluster.run('web9', 'test.ping');
  t.same(ping.returns.web9?.return, true);
  // the real minion's highstate completes after the attempt
  const hs = await cluster.run('web9', 'state.apply', [], { timeout: 60 });
  t.equal(hs.returns.web9?.success, true, 'the highstate completes');
  const after = await cluster.client.get<Keys>('/v1/keys');
  t.same(
    after.keys.filter((k) => k.minion === 'web9' && k.state === 'accepted').map((k) => k.fingerprint),
    [realFinger],
  );
});

t.test('a denied key keeps being refused while the first key is pending, and is not counted twice', async (t) => {
  // the impostor keeps retrying: still one denied row for it
  await until(async () => ((impostor?.lines.filter((l) => l.event === 'key_denied').length ?? 0) >= 3 ? true : undefined), 'impostor retries');
  const keys = await cluster.client.get<Keys>('/v1/keys');
  t.equal(keys.keys.filter((k) => k.minion === 'web9' && k.state === 'denied').length, 1);
});
