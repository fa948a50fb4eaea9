import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { EventBus, type BusEvent } from '../src/event-bus.js';
import { KeyManager, keyFingerprint, parsePublicKey, type KeyManagerOptions } from '../src/keys.js';
import { SqliteBackend } from '../src/store-sqlite.js';

/**
 * Key acceptance as salt-key does it, on a real SQLite store in a temp dir: what a hello gets for
 * an unknown, a known and an impostor's key, the operator's policy (auto_accept, autosign globs,
 * autosign networks), the new-key rate limit and the operator's key changes.
 */

const pub = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();

function manager(t: Test, opts: Partial<KeyManagerOptions> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-keys-'));
  const store = SqliteBackend.open(path.join(dir, 'm.db'));
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const bus = new EventBus(store);
  const events: BusEvent[] = [];
  bus.subscribe('*', (e) => events.push(e));
  const keys = new KeyManager(store, bus, { autoAccept: false, autosign: [], ...opts });
  // events reach subscribers once stored: committing what is queued lets them land
  const settled = async () => {
    await store.flush();
    await new Promise((r) => setImmediate(r));
    return events.map((e) => ({ tag: e.tag, ...(e.data as object) }));
  };
  return { keys, store, settled };
}

t.test('a fingerprint is the SHA-256 of the DER public key, colon-separated upper-case hex', async (t) => {
  const key = generateKeyPairSync('ed25519').publicKey;
  const hex = createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .toUpperCase();
  const fp = keyFingerprint(key);
  t.equal(fp, hex.match(/../g)!.join(':'));
  t.match(fp, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  // read off the PEM's own DER (no export): the same, however the PEM's lines are wrapped
  const pem = key.export({ type: 'spki', format: 'pem' });
  t.equal(keyFingerprint(key, pem), fp);
  const oneLine = pem.replace(/\n(?!-----END)/g, '').replace('KEY-----', 'KEY-----\n');
  t.equal(keyFingerprint(createPublicKey(oneLine), oneLine), fp, 'a PEM wrapped otherwise');
  // a PEM that is not the 44-byte Ed25519 form is fingerprinted through OpenSSL's export
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
  const rsaPem = rsa.export({ type: 'spki', format: 'pem' });
  t.equal(keyFingerprint(rsa, rsaPem), keyFingerprint(rsa));
  for (let i = 0; i < 200; i++) {
    const k = generateKeyPairSync('ed25519').publicKey;
    if (keyFingerprint(k, k.export({ type: 'spki', format: 'pem' })) !== keyFingerprint(k)) t.fail('differs from the export');
  }
});

t.test('only an Ed25519 public key as SPKI PEM is taken', async (t) => {
  const good = pub();
  t.equal(parsePublicKey('m', `  ${good}\n\n`).asymmetricKeyType, 'ed25519', 'surrounding whitespace is fine');
  t.equal(parsePublicKey('m', good.replace(/\n/g, '\r\n')).type, 'public', 'CRLF line ends are fine');
  const refuse = (what: string, text: string, detail: RegExp) =>
    t.throws(() => parsePublicKey('m1', text), { code: 'BRINE_ERR_MASTER_BAD_KEY', message: detail }, what);
  const priv = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  refuse('a private key', priv, /not a single PEM public key/);
  refuse('two keys', `${good}${good}`, /not a single PEM public key/);
  refuse('text before the key', `x${good}`, /not a single PEM public key/);
  refuse('text after the key', `${good.trim()}x`, /not a single PEM public key/);
  refuse('an empty body', '-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----', /not a single PEM public key/);
  refuse('a body that is not a key', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', /minion m1: refused key: unreadable: /);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  refuse('an RSA key', rsa, /a rsa key, not ed25519/);
});

t.test('an unknown key waits for the operator; the same key again gets what its row says', async (t) => {
  const { keys, settled } = manager(t);
  const k = pub();
  t.same(await keys.admit('web1', k, '10.0.0.1'), { state: 'pending' });
  t.same(await keys.admit('web1', k, '10.0.0.1'), { state: 'pending' }, 'asked again: still pending, no second row');
  t.equal((await keys.list()).length, 1);
  t.same(await keys.acceptedIds(), []);
  const fp = (await keys.list())[0]!.fingerprint;
  t.same(await settled(), [{ tag: 'brine/auth', id: 'web1', act: 'pending', fingerprint: fp }]);
  await keys.change('web1', ['pending'], 'accepted');
  const a = await keys.admit('web1', k);
  t.equal(a.state, 'accepted');
  t.equal('key' in a && keyFingerprint(a.key), fp, 'an accepted hello carries the key');
  t.same(await keys.acceptedIds(), ['web1']);
  await keys.change('web1', ['accepted'], 'rejected');
  t.same(await keys.admit('web1', k), { state: 'rejected' });
});

t.test('another key for a known id is denied and never replaces the first', async (t) => {
  const { keys, store, settled } = manager(t);
  const first = pub();
  await keys.admit('db1', first);
  await keys.change('db1', ['pending'], 'accepted');
  t.same(await keys.admit('db1', pub()), { state: 'denied' });
  const impostor = pub();
  t.same(await keys.admit('db1', impostor), { state: 'denied' });
  const rows = await store.keysOf('db1');
  t.same(rows.map((r) => r.state).sort(), ['accepted', 'denied'], 'one denied row: the newest impostor');
  t.equal(rows.find((r) => r.state === 'denied')!.pub, impostor);
  t.equal((await keys.admit('db1', first)).state, 'accepted', 'the first key still gets in');
  t.same(await keys.admit('db1', impostor), { state: 'denied' }, 'the denied key asking again stays denied');
  const acts = (await settled()).filter((e) => e.tag === 'brine/auth').map((e) => (e as { act: string }).act);
  t.same(acts, ['pending', 'denied', 'denied']);
});

t.test('a pending first key also keeps a second one out', async (t) => {
  const { keys } = manager(t);
  await keys.admit('app', pub());
  t.same(await keys.admit('app', pub()), { state: 'denied' });
});

t.test('a denied key whose rival is deleted is decided afresh, on its own row', async (t) => {
  const { keys, store, settled } = manager(t);
  const first = pub();
  const second = pub();
  await keys.admit('m', first);
  await keys.admit('m', second);
  const fpFirst = (await store.keysOf('m')).find((r) => r.state === 'pending')!.fingerprint;
  await keys.change('m', ['pending'], 'deleted');
  t.same(await keys.admit('m', second), { state: 'pending' });
  const rows = await store.keysOf('m');
  t.equal(rows.length, 1);
  t.equal(rows[0]!.pub, second);
  t.not(rows[0]!.fingerprint, fpFirst);
  t.same(
    (await settled()).map((e) => [e.tag, (e as { act: string }).act]),
    [
      ['brine/auth', 'pending'],
      ['brine/auth', 'denied'],
      ['brine/key', 'deleted'],
      ['brine/auth', 'pending'],
    ],
  );
});

t.test('a denied key whose rival is deleted is accepted afresh when the policy accepts it', async (t) => {
  const { keys, store } = manager(t, { autosign: ['m'] });
  await keys.admit('m', pub());
  const second = pub();
  await keys.admit('m', second);
  t.same((await store.keysOf('m')).map((r) => r.state).sort(), ['accepted', 'denied']);
  await keys.change('m', ['accepted'], 'deleted');
  t.equal((await keys.admit('m', second)).state, 'accepted');
});

t.test('a denied key stays denied while a rejected rival remains', async (t) => {
  const { keys } = manager(t);
  await keys.admit('m', pub());
  const second = pub();
  await keys.admit('m', second);
  await keys.change('m', ['pending'], 'rejected');
  t.same(await keys.admit('m', second), { state: 'denied' });
});

t.test('the policy: auto_accept, autosign globs and autosign networks', async (t) => {
  const all = manager(t, { autoAccept: true });
  t.equal((await all.keys.admit('anything', pub())).state, 'accepted');
  const globs = manager(t, { autosign: ['web*', 'db?'] });
  t.equal((await globs.keys.admit('web7', pub())).state, 'accepted');
  t.equal((await globs.keys.admit('db1', pub())).state, 'accepted');
  t.same(await globs.keys.admit('mail', pub()), { state: 'pending' });
  const nets = manager(t, { autosignNetworks: ['10.1.0.0/16', 'fd00::/8'] });
  t.equal((await nets.keys.admit('a', pub(), '10.1.2.3')).state, 'accepted');
  t.equal((await nets.keys.admit('b', pub(), '::ffff:10.1.9.9')).state, 'accepted', 'IPv4-mapped');
  t.equal((await nets.keys.admit('c', pub(), 'fd00::7')).state, 'accepted', 'IPv6');
  t.equal((await nets.keys.admit('d', pub(), '10.2.0.1')).state, 'pending');
  t.equal((await nets.keys.admit('e', pub(), 'fe80::1')).state, 'pending');
  t.equal((await nets.keys.admit('f', pub())).state, 'pending', 'no address: not inside');
  const none = manager(t, { autosignNetworks: [] });
  t.equal((await none.keys.admit('g', pub(), '10.1.2.3')).state, 'pending');
});

t.test('new key rows are rate limited per source and in all; accepted ones and known keys are not', async (t) => {
  const { keys } = manager(t, { newKeysPerMinute: 2, newKeysPerMinuteTotal: 3, autosign: ['ok*'] });
  const k1 = pub();
  await keys.admit('n1', k1, '10.0.0.1');
  await keys.admit('n2', pub(), '10.0.0.1');
  await t.rejects(keys.admit('n3', pub(), '10.0.0.1'), {
    code: 'BRINE_ERR_MASTER_KEY_RATE_LIMITED',
    message: 'minion n3: too many new keys from 10.0.0.1 (2 a minute, new_keys_per_minute); try again later',
  });
  t.same(await keys.admit('n1', k1, '10.0.0.1'), { state: 'pending' }, 'a known key is not a new row');
  t.equal((await keys.admit('ok1', pub(), '10.0.0.1')).state, 'accepted', 'autosigned keys are not throttled');
  await t.rejects(keys.admit('n1', pub(), '10.0.0.1'), { code: 'BRINE_ERR_MASTER_KEY_RATE_LIMITED' }, 'an impostor row counts too');
  await keys.admit('n4', pub(), '10.0.0.2');
  await t.rejects(keys.admit('n5', pub(), '10.0.0.3'), {
    message: 'minion n5: too many new keys from all addresses (3 a minute, new_keys_per_minute_total); try again later',
  });
  t.equal((await keys.list()).length, 4, 'refused hellos left no row');
});

t.test('without an address the limit names no source', async (t) => {
  const { keys } = manager(t, { newKeysPerMinute: 1 });
  await keys.admit('a', pub());
  await t.rejects(keys.admit('b', pub()), { message: /too many new keys from this address \(1 a minute/ });
});

t.test('the default limits: 60 a minute from one source, 600 in all', async (t) => {
  const { keys } = manager(t);
  for (let i = 0; i < 60; i++) await keys.admit(`s${i}`, pub(), '10.0.0.1');
  await t.rejects(keys.admit('s60', pub(), '10.0.0.1'), { message: /\(60 a minute, new_keys_per_minute\)/ });
});

t.test('two keys arriving together for one new id: one lands first, the other is denied', async (t) => {
  const { keys } = manager(t);
  const got = await Promise.all([keys.admit('twin', pub()), keys.admit('twin', pub())]);
  t.same(got.map((g) => g.state).sort(), ['denied', 'pending']);
  t.same(await keys.admit('solo', 'not a key').catch((e: { code: string }) => e.code), 'BRINE_ERR_MASTER_BAD_KEY');
  t.equal((await keys.admit('solo', pub())).state, 'pending', 'a failed hello does not block the next of its id');
});

t.test('the operator moves keys by glob and state; one accepted key per id', async (t) => {
  const { keys, settled } = manager(t);
  for (const id of ['web1', 'web2', 'db1']) await keys.admit(id, pub());
  const changed = await keys.change('web*', ['pending'], 'accepted');
  t.same(
    changed.map((c) => [c.minion, c.from, c.to]),
    [
      ['web1', 'pending', 'accepted'],
      ['web2', 'pending', 'accepted'],
    ],
  );
  t.same((await keys.list()).map((r) => [r.minion, r.state]).sort(), [
    ['db1', 'pending'],
    ['web1', 'accepted'],
    ['web2', 'accepted'],
  ]);
  t.same(await keys.change('web*', ['pending'], 'rejected'), [], 'from names the states that move');
  // a denied impostor of web1 cannot be accepted beside web1's key
  await keys.admit('web1', pub());
  t.same(await keys.change('web1', ['denied'], 'accepted'), []);
  t.same((await keys.change(undefined, ['denied', 'pending'], 'deleted')).map((c) => [c.minion, c.from, c.to]).sort(), [
    ['db1', 'pending', 'deleted'],
    ['web1', 'denied', 'deleted'],
  ]);
  t.same((await keys.list()).map((r) => r.minion).sort(), ['web1', 'web2']);
  const keyEvents = (await settled()).filter((e) => e.tag === 'brine/key');
  t.equal(keyEvents.length, 4);
  t.match(keyEvents[0], { id: 'web1', act: 'accepted', from: 'pending', fingerprint: /^[0-9A-F:]+$/ });
  t.match(keyEvents[3], { act: 'deleted', from: /pending|denied/ });
});

t.test('one live key per id: a second is never stored, and a denied one comes back only alone', async (t) => {
  const { keys, store } = manager(t);
  await keys.admit('x', pub());
  t.equal(await store.insertKey('x', 'pub-2', 'FP-2', 'pending'), false, 'the store refuses a second live key');
  await keys.admit('x', pub());
  t.same((await store.keysOf('x')).map((r) => r.state).sort(), ['denied', 'pending']);
  t.same(await keys.change('x', ['denied'], 'pending'), [], 'the denied key may not join the pending one');
  t.same(
    (await keys.change('x', ['pending', 'denied'], 'accepted')).map((c) => c.from),
    ['pending'],
    'accepting both takes only the first',
  );
  t.same((await store.keysOf('x')).map((r) => r.state).sort(), ['accepted', 'denied']);
});

t.test('a hello queued behind a failing one of its id is still decided', async (t) => {
  const { keys } = manager(t);
  const [bad, good] = await Promise.allSettled([keys.admit('q', 'not a key'), keys.admit('q', pub())]);
  t.equal(bad.status, 'rejected');
  t.same(good, { status: 'fulfilled', value: { state: 'pending' } });
});

t.test('with only a denied row left, a new key is the first again', async (t) => {
  const { keys } = manager(t);
  await keys.admit('m', pub());
  await keys.admit('m', pub());
  await keys.change('m', ['pending'], 'deleted');
  t.same(await keys.admit('m', pub()), { state: 'pending' }, 'a denied row does not keep out a third key');
});

t.test('a key accepted by policy comes back with the key itself', async (t) => {
  const { keys } = manager(t, { autoAccept: true });
  const k = pub();
  const a = await keys.admit('auto', k);
  t.equal(a.state, 'accepted');
  t.equal('key' in a && a.key.export({ type: 'spki', format: 'pem' }).toString(), k);
});

t.test('re-accepting an accepted key is a change of its own', async (t) => {
  const { keys } = manager(t, { autoAccept: true });
  await keys.admit('r', pub());
  t.same(
    (await keys.change('r', ['accepted', 'pending'], 'accepted')).map((c) => [c.minion, c.from, c.to]),
    [['r', 'accepted', 'accepted']],
  );
});

t.test('the accepted ids are read from the store once and follow every key change made here', async (t) => {
  const { keys, store } = manager(t, { autosign: ['auto*'] });
  let reads = 0;
  const listKeys = store.listKeys.bind(store);
  store.listKeys = () => {
    reads++;
    return listKeys();
  };
  const accepted = async () => (await keys.acceptedIds()).sort();
  for (const id of ['web1', 'web2']) await keys.admit(id, pub());
  t.same(await accepted(), []);
  t.same(await accepted(), []);
  t.equal(reads, 1, 'a publish and a minion page do not read every key row each time');
  await keys.change('web*', ['pending'], 'accepted');
  t.same(await accepted(), ['web1', 'web2'], 'accepted by the operator');
  await keys.admit('auto1', pub());
  t.same(await accepted(), ['auto1', 'web1', 'web2'], 'accepted by autosign');
  await keys.change('web1', ['accepted'], 'rejected');
  t.same(await accepted(), ['auto1', 'web2'], 'rejected: refused at the next publish');
  await keys.change('auto1', ['accepted'], 'deleted');
  t.same(await accepted(), ['web2'], 'deleted');
  await keys.preseed('pre', pub());
  t.same(await accepted(), ['pre', 'web2'], 'preseeded');
  await keys.admit('web2', pub());
  t.same(await accepted(), ['pre', 'web2'], "an impostor's denied key changes nothing");
  await keys.change('web1', ['rejected'], 'accepted');
  t.same(await accepted(), ['pre', 'web1', 'web2'], 'a rejected key accepted again');
});

t.test('on a shared store the accepted ids are read each time: other masters change keys too', async (t) => {
  const { keys, store } = manager(t);
  (store as { clustered: boolean }).clustered = true;
  await keys.admit('m1', pub());
  t.same(await keys.acceptedIds(), []);
  // another master accepts it: only the store knows
  await store.changeKeys([{ minion: 'm1', fingerprint: (await store.keysOf('m1'))[0]!.fingerprint, to: 'accepted' }]);
  t.same(await keys.acceptedIds(), ['m1']);
});

t.test('a preseeded key (read on the host itself) takes the place of a pending key from the network', async (t) => {
  const { keys, store } = manager(t);
  await keys.admit('h1', pub());
  const { fingerprint, changed } = await keys.preseed('h1', pub());
  t.ok(changed);
  t.same(Object.fromEntries((await store.keysOf('h1')).map((r) => [r.state, r.fingerprint === fingerprint])), { accepted: true, denied: false });
});
