import { generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { keyPair, RawClient } from './helpers/raw-client.js';
import { rawSession } from './helpers/raw-session.js';

type Stats = { unauthenticated: number; auth_timeouts: number; unauth_refused: number; unauth_too_much_data: number; running_refused: number };
type Keys = { accepted: string[]; pending: string[]; denied: string[]; keys: Array<{ minion: string; state: string; fingerprint: string }> };

// a master that closes unauthenticated connections quickly
const quick = new Cluster({ minions: ['q1'], master: { auth_timeout: 1 } });
// a master with room for exactly three unauthenticated connections from one address
const tight = new Cluster({
  autosign: false,
  master: { auth_timeout: 600, max_unauthenticated_per_address: 3, new_keys_per_minute: 3, autosign: ['worker*', 'forger'] },
});
t.before(async () => {
  await Promise.all([quick.start(), tight.start()]);
});
t.teardown(() => Promise.all([quick.close(), tight.close()]));

function closed(c: RawClient): Promise<boolean> {
  return until(() => (c.closed ? true : undefined), 'the master closes the connection');
}

const identities = new Map<string, ReturnType<typeof keyPair>>();

/** A raw session of an autosigned id (one key per id, as a real minion keeps it). */
async function authenticated(cluster: Cluster, minion: string): Promise<RawClient> {
  let kp = identities.get(minion);
  if (!kp) identities.set(minion, (kp = keyPair()));
  return rawSession(cluster.port, minion, kp);
}

t.test('a connection that does not authenticate within auth_timeout is closed', async (t) => {
  const idle = new RawClient(quick.port);
  await idle.open();
  t.ok(await closed(idle), 'an idle WebSocket is closed');
  // one that never even starts TLS is closed too
  const tcp = net.connect(quick.port, '127.0.0.1');
  await until(() => (tcp.destroyed || tcp.closed ? true : undefined), 'a bare TCP connection is closed');
  const stats = await quick.client.get<Stats>('/v1/stats');
  t.ok(stats.auth_timeouts >= 2, `auth_timeouts ${stats.auth_timeouts}`);
  t.equal(stats.unauthenticated, 0);
  // an authenticated session outlives the deadline: its jobs still run
  const r = await quick.run('q1', 'test.ping');
  t.same(r.returns.q1?.return, true);
});

t.test('unauthenticated connections are capped per source address', async (t) => {
  const held: RawClient[] = [];
  for (let i = 0; i < 3; i++) {
    const c = new RawClient(tight.port);
    await c.open();
    held.push(c);
  }
  await until(async () => ((await tight.client.get<Stats>('/v1/stats')).unauthenticated === 3 ? true : undefined), 'three waiting');
  const fourth = new RawClient(tight.port);
  const refused = await fourth.open().then(
    () => closed(fourth),
    () => true,
  );
  t.ok(refused, 'the fourth is refused');
  t.ok((await tight.client.get<Stats>('/v1/stats')).unauth_refused >= 1);
  held.pop()!.ws.close();
  await until(async () => ((await tight.client.get<Stats>('/v1/stats')).unauthenticated < 3 ? true : undefined), 'room again');
  const fifth = new RawClient(tight.port);
  await fifth.open();
  fifth.send({ v: 1, type: 'ping', id: 'p' });
  t.match(await fifth.next('pong'), { id: 'p' }, 'a new one is heard once there is room');
  for (const c of [...held, fifth]) c.ws.close();
  await until(async () => ((await tight.client.get<Stats>('/v1/stats')).unauthenticated === 0 ? true : undefined), 'all gone');
});

t.test('before authentication only small frames are heard, and only a few of them', async (t) => {
  const big = new RawClient(tight.port);
  await big.open();
  big.send('x'.repeat(20_000));
  t.match(await big.next('error'), { code: 'BRINE_ERR_PROTO_FRAME_TOO_LARGE' });
  t.ok(await closed(big), 'a frame over auth_max_frame_bytes ends the session');
  const chatty = new RawClient(tight.port);
  await chatty.open();
  for (let i = 0; i < 6; i++) chatty.send(`{${'x'.repeat(15_000)}`);
  t.ok(await closed(chatty), 'more than the byte budget before auth ends the session');
  t.ok((await tight.client.get<Stats>('/v1/stats')).unauth_too_much_data >= 1);
  // once authenticated the frame limit is max_frame_bytes
  const c = await authenticated(tight, 'forger');
  c.send('x'.repeat(20_000));
  t.match(await c.next('error'), { code: 'BRINE_ERR_PROTO_BAD_JSON' });
  c.send('x'.repeat(1024 * 1024 + 10));
  t.match(await c.next('error'), { code: 'BRINE_ERR_PROTO_FRAME_TOO_LARGE' });
  c.ws.close();
});

t.test('only an Ed25519 public key in SPKI PEM is stored', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const cases: Array<[string, string]> = [
    ['privkey', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()],
    ['rsakey', rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
    ['garbage', 'not a key'],
  ];
  for (const [minion, pub] of cases) {
    const c = new RawClient(tight.port);
    await c.open();
    c.send({ v: 1, type: 'hello', minion, pub, version: 'x' });
    t.match(await c.next('error'), { code: 'BRINE_ERR_MASTER_BAD_KEY', message: new RegExp(`minion ${minion}: refused key`) }, minion);
  }
  const keys = await tight.client.get<Keys>('/v1/keys');
  t.same(
    keys.keys.filter((k) => ['privkey', 'rsakey', 'garbage'].includes(k.minion)),
    [],
    'no row stored',
  );
});

t.test('one pending key per id: the first stays, a second is denied', async (t) => {
  const finger: string[] = [];
  for (const want of ['pending', 'denied']) {
    const c = new RawClient(tight.port);
    await c.open();
    c.send({ v: 1, type: 'hello', minion: 'twice', pub: keyPair().pub, version: 'x' });
    t.match(await c.next('key_state'), { state: want });
    const keys = await tight.client.get<Keys>('/v1/keys');
    finger.push(keys.keys.find((k) => k.minion === 'twice' && k.state === want)!.fingerprint);
  }
  const keys = await tight.client.get<Keys>('/v1/keys');
  t.same(
    keys.keys
      .filter((k) => k.minion === 'twice')
      .map((k) => [k.state, k.fingerprint])
      .sort(),
    [
      ['denied', finger[1]],
      ['pending', finger[0]],
    ],
  );
  t.not(finger[0], finger[1]);
});

t.test('hellos that would add key rows are rate-limited', async (t) => {
  // new_keys_per_minute is 3 and the test before spent two
  const states: string[] = [];
  for (let i = 0; i < 4; i++) {
    const c = new RawClient(tight.port);
    await c.open();
    c.send({ v: 1, type: 'hello', minion: `flood${i}`, pub: keyPair().pub, version: 'x' });
    const m = await c.next();
    states.push((m.state ?? m.code) as string);
  }
  t.ok(states.includes('BRINE_ERR_MASTER_KEY_RATE_LIMITED'), states.join(','));
  const keys = await tight.client.get<Keys>('/v1/keys');
  t.ok(keys.keys.filter((k) => k.minion.startsWith('flood')).length < 4, 'not every hello made a row');
  // autosigned ids are not throttled: a fleet may enroll at once
  const w = tight.startMinion('worker1');
  await w.waitEvent('minion_ready');
});

t.test('a minion may only report its own jobs as running, as jids, and not too many', async (t) => {
  await tight.waitMinionsKnown(['worker1']);
  const job = await tight.client.post<{ jid: string }>('/v1/jobs', { tgt: 'worker1', fun: 'cmd.run', arg: ['sleep 30'] });
  const forger = await authenticated(tight, 'forger');
  const before = (await tight.client.get<Stats>('/v1/stats')).running_refused;
  forger.send({ v: 1, type: 'grains', grains: { os: 'Evil' }, running: [job.jid, '20200101000000000009'] });
  await until(async () => ((await tight.client.get<Stats>('/v1/stats')).running_refused >= before + 2 ? true : undefined), 'claims refused');
  const { active } = await tight.client.get<{ active: Array<{ jid: string; running: string[] }> }>('/v1/jobs/active');
  t.same(active.find((a) => a.jid === job.jid)?.running, ['worker1'], "the forger is not listed on worker1's job");
  forger.send({ v: 1, type: 'grains', grains: {}, running: ['../../etc'] });
  t.match(await forger.next('error'), { code: 'BRINE_ERR_PROTO_BAD_FIELD', message: /running\[0\]/ });
  forger.send({ v: 1, type: 'grains', grains: {}, running: Array.from({ length: 1025 }, (_, i) => String(i).padStart(20, '0')) });
  t.match(await forger.next('error'), { code: 'BRINE_ERR_PROTO_BAD_FIELD', message: /more than 1024/ });
  forger.ws.close();
  await tight.client.post('/v1/jobs', { tgt: 'worker1', fun: 'saltutil.kill_job', arg: [job.jid], wait: true });
});
