import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { authSig, keyPair, RawClient } from './helpers/raw-client.js';

const cluster = new Cluster({ autosign: false });
t.before(() => cluster.start());
t.teardown(() => cluster.close());

t.test('a new minion is pending until accepted, then authenticates and answers', async (t) => {
  const m = cluster.startMinion('alpha');
  await m.waitEvent('key_pending');
  const list = await cluster.brine(['key', 'list']);
  t.match(list.stdout, /Unaccepted Keys:\nalpha\n/);
  const acc = await cluster.brine(['key', 'accept', 'alpha', '--yes']);
  t.equal(acc.code, 0, acc.stderr);
  t.match(acc.stdout, /Key for minion alpha accepted/);
  await m.waitEvent('minion_ready');
  await cluster.waitMinionsKnown(['alpha']);
  const r = await cluster.run('alpha', 'test.ping');
  t.same(r.returns.alpha?.return, true);
  const finger = await cluster.brine(['key', 'finger', '--out', 'json']);
  t.equal((JSON.parse(finger.stdout) as { master: string }).master, cluster.fingerprint);
});

t.test('a known id with a different key is denied, never replacing the accepted key', async (t) => {
  const impostor = new RawClient(cluster.port);
  await impostor.open();
  impostor.send({ v: 1, type: 'hello', minion: 'alpha', pub: keyPair().pub, version: 'x' });
  t.match(await impostor.next('key_state'), { state: 'denied' });
  const keys = await cluster.client.get<{ accepted: string[]; denied: string[] }>('/v1/keys');
  t.same(keys.accepted, ['alpha']);
  t.same(keys.denied, ['alpha']);
  // accepting the denied key as well would give the id two keys: it is not done
  const acc = await cluster.client.post<{ changed: unknown[] }>('/v1/keys/accept', { match: 'alpha', include_denied: true });
  t.same(acc.changed, []);
  const after = await cluster.client.get<{ accepted: string[]; denied: string[] }>('/v1/keys');
  t.same(after.accepted, ['alpha'], 'still one accepted key for alpha');
  // the real alpha keeps working
  const r = await cluster.run('alpha', 'test.ping');
  t.same(r.returns.alpha?.return, true);
});

t.test('a rejected key retrying keeps being refused', async (t) => {
  const bad = keyPair();
  for (let i = 0; i < 2; i++) {
    const c = new RawClient(cluster.port);
    await c.open();
    c.send({ v: 1, type: 'hello', minion: 'mallory', pub: bad.pub, version: 'x' });
    const st = await c.next('key_state');
    if (i === 0) {
      t.equal(st.state, 'pending');
      const rej = await cluster.brine(['key', 'reject', 'mallory', '-y']);
      t.equal(rej.code, 0, rej.stderr);
    } else t.equal(st.state, 'rejected');
  }
});

t.test('signatures are bound to the TLS session: a replayed one fails', async (t) => {
  const kp = keyPair();
  // enroll 'replay' and accept it
  const first = new RawClient(cluster.port);
  await first.open();
  first.send({ v: 1, type: 'hello', minion: 'replay', pub: kp.pub, version: 'x' });
  await first.next('key_state');
  await cluster.client.post('/v1/keys/accept', { match: 'replay' });
  const a = new RawClient(cluster.port);
  await a.open();
  a.send({ v: 1, type: 'hello', minion: 'replay', pub: kp.pub, version: 'x' });
  const ch = await a.next('challenge');
  const good = authSig(kp.priv, 'replay', ch.nonce as string, a.binding());
  // another session, same nonce cannot be asked for: the stolen signature is sent to a fresh challenge
  const b = new RawClient(cluster.port);
  await b.open();
  b.send({ v: 1, type: 'hello', minion: 'replay', pub: kp.pub, version: 'x' });
  await b.next('challenge');
  b.send({ v: 1, type: 'auth', sig: good });
  t.match(await b.next('error'), { code: 'BRINE_ERR_MASTER_AUTH_FAILED' });
  // the legitimate session still works with it
  a.send({ v: 1, type: 'auth', sig: good });
  t.match(await a.next('welcome'), { minion: 'replay' });
  a.ws.close();
});

t.test('bad frames get coded errors, are counted, and the master keeps serving', async (t) => {
  const before = await cluster.client.get<{ invalid_frames: number }>('/v1/stats');
  const c = new RawClient(cluster.port);
  await c.open();
  const cases: Array<[unknown, string]> = [
    ['{oops', 'BRINE_ERR_PROTO_BAD_JSON'],
    [{ v: 2, type: 'hello' }, 'BRINE_ERR_PROTO_BAD_VERSION'],
    [{ v: 1, type: 'explode' }, 'BRINE_ERR_PROTO_UNKNOWN_TYPE'],
    [{ v: 1, type: 'hello', minion: 'x' }, 'BRINE_ERR_PROTO_BAD_FIELD'],
  ];
  for (const [frame, code] of cases) {
    c.send(frame);
    t.match(await c.next('error'), { code }, code);
  }
  // anything but hello/auth before authentication ends the session
  c.send({ v: 1, type: 'ret', id: 'r1', jid: '20250101000000000000', fun: 'test.ping', success: true, retcode: 0, return: true, started: '', finished: '' });
  t.match(await c.next('error'), { code: 'BRINE_ERR_PROTO_NOT_AUTHENTICATED', ref: 'r1' });
  await until(() => (c.closed ? true : undefined), 'close');
  const after = await cluster.client.get<{ invalid_frames: number }>('/v1/stats');
  t.ok(after.invalid_frames >= before.invalid_frames + 5);
  const r = await cluster.run('alpha', 'test.ping');
  t.same(r.returns.alpha?.return, true, 'others are still served');
});

t.test('an authenticated minion cannot return for a job that did not target it', async (t) => {
  const other = await cluster.run('alpha', 'test.echo', ['secret']);
  const kp = keyPair();
  const c0 = new RawClient(cluster.port);
  await c0.open();
  c0.send({ v: 1, type: 'hello', minion: 'eve', pub: kp.pub, version: 'x' });
  await c0.next('key_state');
  await cluster.client.post('/v1/keys/accept', { match: 'eve' });
  const c = new RawClient(cluster.port);
  await c.open();
  c.send({ v: 1, type: 'hello', minion: 'eve', pub: kp.pub, version: 'x' });
  const ch = await c.next('challenge');
  c.send({ v: 1, type: 'auth', sig: authSig(kp.priv, 'eve', ch.nonce as string, c.binding()) });
  await c.next('welcome');
  c.send({ v: 1, type: 'grains', grains: { id: 'alpha', os: 'Evil' }, running: [] });
  c.send({ v: 1, type: 'ret', id: 'x1', jid: other.jid, fun: 'test.echo', success: true, retcode: 0, return: 'forged', started: '', finished: '' });
  t.match(await c.next('error'), { code: 'BRINE_ERR_MASTER_NOT_YOUR_JOB', ref: 'x1' });
  const report = await cluster.client.get<{ returns: Record<string, { return: unknown }> }>(`/v1/jobs/${other.jid}`);
  t.same(Object.keys(report.returns), ['alpha']);
  t.equal(report.returns.alpha!.return, 'secret');
  // read once the forged grains have arrived: eve's claimed id 'alpha' must not survive
  const minions = await until(async () => {
    const m = (await cluster.client.get<{ minions: Array<{ id: string; grains: { id: string; os?: string } }> }>('/v1/minions')).minions;
    return m.find((x) => x.id === 'eve')?.grains.os === 'Evil' ? m : undefined;
  }, 'eve grains');
  t.equal(minions.find((m) => m.id === 'eve')!.grains.id, 'eve', 'the id grain is the authenticated id');
  t.ok(
    minions.every((m) => m.id === m.grains.id || !m.grains.id),
    'every id grain is its authenticated id',
  );
  c.ws.close();
});

t.test('the API needs the token; the OpenAPI document is served', async (t) => {
  const res = await fetch(`${cluster.apiUrl}/v1/keys`);
  t.equal(res.status, 401);
  t.match(await res.json(), { code: 'BRINE_ERR_MASTER_UNAUTHORIZED' });
  const bad = await fetch(`${cluster.apiUrl}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cluster.client.target.token}`, 'content-type': 'application/json' },
    body: '{"tgt": 5}',
  });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { code: 'BRINE_ERR_MASTER_BAD_REQUEST' });
  type Op = { summary: string; responses: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }> };
  const doc = (await (await fetch(`${cluster.apiUrl}/v1/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, Op>> };
  t.equal(doc.openapi, '3.0.3');
  const job = doc.paths['/v1/jobs/{jid}']!.get!;
  t.match(job.summary, /One job/);
  t.ok(job.responses['200']!.content!['application/json']!.schema!.properties!.returns, 'responses carry their schemas');
  t.ok(job.responses['4XX'] ?? job.responses['4xx'], 'and the coded error');
  t.notOk(doc.paths['/v1/openapi.json'], 'the document does not list itself');
  for (const p of ['/metrics', '/v1/events', '/v1/jobs', '/v1/jobs/active', '/v1/keys', '/v1/minions']) t.ok(doc.paths[p], `${p} is documented`);
});

t.test('a minion pinned to another fingerprint refuses the master loudly', async (t) => {
  const m = cluster.startMinion('pinned', { master_finger: 'AA:BB:CC' });
  await m.exited();
  t.equal(m.exitCode, 1);
  t.match(m.stderrText, /BRINE_ERR_MINION_MASTER_FINGER/);
  // trust on first use is recorded and then enforced
  const dir = path.join(cluster.dir, 'minion-alpha', 'pki', 'master_finger');
  writeFileSync(dir, 'DE:AD:BE:EF\n');
  await cluster.minions.get('alpha')!.kill('SIGTERM');
  const again = cluster.startMinion('alpha');
  await again.exited();
  t.equal(again.exitCode, 1);
  t.match(again.stderrText, /recorded on first contact/);
});

t.test('a preseeded key is accepted at once; the same key again changes nothing; another is refused', async (t) => {
  const kp = keyPair();
  const first = await cluster.client.post<{ changed: boolean; fingerprint: string }>('/v1/keys/preseed', { minion: 'seeded', pub: kp.pub });
  t.equal(first.changed, true);
  const again = await cluster.client.post<{ changed: boolean; fingerprint: string }>('/v1/keys/preseed', { minion: 'seeded', pub: kp.pub });
  t.same(again, { minion: 'seeded', fingerprint: first.fingerprint, changed: false });
  await t.rejects(cluster.client.post('/v1/keys/preseed', { minion: 'seeded', pub: keyPair().pub }), { code: 'BRINE_ERR_MASTER_KEY_CONFLICT' });
  await t.rejects(cluster.client.post('/v1/keys/preseed', { minion: 'bad/id', pub: kp.pub }), { code: 'BRINE_ERR_MASTER_BAD_REQUEST' });
  await t.rejects(cluster.client.post('/v1/keys/preseed', { minion: 'other', pub: 'ssh-ed25519 AAAA' }), { code: 'BRINE_ERR_MASTER_BAD_KEY' });
  const keys = await cluster.client.get<{ accepted: string[]; pending: string[] }>('/v1/keys');
  t.ok(keys.accepted.includes('seeded'));
  t.notOk(keys.pending.includes('seeded'));
  // the seeded key authenticates on its first hello: no pending step
  const c = new RawClient(cluster.port);
  await c.open();
  c.send({ v: 1, type: 'hello', minion: 'seeded', pub: kp.pub, version: 'x' });
  const ch = await c.next('challenge');
  c.send({ v: 1, type: 'auth', sig: authSig(kp.priv, 'seeded', ch.nonce as string, c.binding()) });
  t.match(await c.next('welcome'), { minion: 'seeded' });
  c.ws.close();
});
