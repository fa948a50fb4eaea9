import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { StateResultItem } from '@brine/protocol';
import { startPostgres, type PostgresServer } from '../../../test/support/postgres.js';
import type { StoreBackend } from '../src/store-backend.js';
import { SqliteBackend } from '../src/store-sqlite.js';
import { PgStore } from '../src/store-pg.js';
import { openStore } from '../src/store-url.js';
import { EventBus } from '../src/event-bus.js';
import { KeyManager } from '../src/keys.js';
import { generateKeyPairSync } from 'node:crypto';
import { migrateSqliteToPostgres } from '../src/store-migrate.js';
import type { JobRow } from '../src/store.js';
import { MIGRATIONS } from '../src/migrations.js';
import { countTurns } from './helpers/turns.js';

/**
 * One suite, two backends: every query the master makes must answer the same on SQLite and on a
 * real PostgreSQL server (Debian's, started in a temp dir for this file).
 */

let server: PostgresServer;
let dbs = 0;
t.before(async () => {
  server = await startPostgres();
});
t.teardown(() => server.stop());

function tmpDir(t: Test): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-backend-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh empty database per test, so the backends start equal. */
async function freshPg(t: Test): Promise<{ url: string; store: PgStore }> {
  const name = `brine_t${++dbs}`;
  await server.createDatabase(name);
  const url = server.url(name);
  const store = await PgStore.open(url, server.password);
  t.teardown(() => store.close());
  return { url, store };
}

const backends: Array<[string, (t: Test) => Promise<StoreBackend>]> = [
  [
    'sqlite',
    async (t) => {
      const s = SqliteBackend.open(path.join(tmpDir(t), 'master.db'));
      t.teardown(() => s.close());
      return s;
    },
  ],
  ['postgres', async (t) => (await freshPg(t)).store],
];

const job = (jid: string, expected: string[], fun = 'state.apply'): JobRow => ({
  jid,
  fun,
  arg: [],
  kwarg: { test: false },
  target: expected.length > 1 ? expected : expected[0]!,
  tgt_type: expected.length > 1 ? 'list' : 'glob',
  user: 'ops',
  batch: null,
  created_at: new Date(Number(jid.slice(0, 4)), 0, 1).toISOString(),
  expected,
});

const item = (run_num: number, result: boolean | null, changes: object = {}): StateResultItem => ({
  run_num,
  tag: `file_|-f${run_num}_|-/tmp/f${run_num}_|-managed`,
  ret: {
    result,
    changes,
    comment: `state ${run_num}`,
    name: `/tmp/f${run_num}`,
    __id__: `f${run_num}`,
    __sls__: 'web',
    duration: 1.5,
    start_time: '10:00:00.000000',
  },
});

for (const [kind, open] of backends) {
  t.test(`${kind}: keys and minions`, async (t) => {
    const s = await open(t);
    t.equal(await s.schemaVersion(), MIGRATIONS.length, 'every schema step ran');
    await s.insertKey('web1', 'PUB1', 'fp1', 'pending');
    await s.insertKey('db1', 'PUB2', 'fp2', 'accepted');
    await s.setKeyState('web1', 'fp1', 'accepted');
    t.same(
      (await s.listKeys()).map((k) => [k.minion, k.state, k.fingerprint]),
      [
        ['db1', 'accepted', 'fp2'],
        ['web1', 'accepted', 'fp1'],
      ],
    );
    await s.saveGrains('web1', { os: 'Debian', roles: ['web'] });
    await s.touchMinion('web1');
    t.same(await s.grainsOf('web1'), { os: 'Debian', roles: ['web'] });
    t.equal(await s.grainsOf('nobody'), undefined);
    t.same(
      (await s.listMinions()).map((m) => m.minion),
      ['web1'],
    );
    t.ok((await s.listMinions())[0]!.last_seen, 'last seen stored');
    await s.deleteKey('web1', 'fp1');
    t.same(await s.keysOf('web1'), []);
    t.same(await s.listMinions(), [], 'a minion without keys goes with its last key');
  });

  t.test(`${kind}: one live key per id, so two masters' first hellos at once cannot both land`, async (t) => {
    // a second master on the same store: its own key manager (its own one-hello-at-a-time queue)
    // and, on PostgreSQL, its own connection pool
    let s: StoreBackend;
    let other: StoreBackend;
    if (kind === 'postgres') {
      const pg = await freshPg(t);
      s = pg.store;
      other = await PgStore.open(pg.url, server.password);
      t.teardown(() => other.close());
    } else other = s = await open(t);
    const [a, b] = [s, other].map((st) => new KeyManager(st, new EventBus(st), { autoAccept: false, autosign: [] }));
    const pem = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (let round = 0; round < 5; round++) {
      const id = `new${round}`;
      const got = (await Promise.all([a!.admit(id, pem()), b!.admit(id, pem())])).map((r) => r.state).sort();
      t.same(got, ['denied', 'pending'], `${id}: the first key stays, the other is denied`);
      t.same((await s.keysOf(id)).map((r) => r.state).sort(), ['denied', 'pending']);
    }
    t.equal(await s.insertKey('new0', 'PUB9', 'fp9', 'pending'), false, 'a second live key of an id is never stored');
    t.equal(await s.insertKey('new0', 'PUB9', 'fp9', 'denied'), true, 'a denied one is');
  });

  t.test(`${kind}: minions a page at a time (GET /v1/minions)`, async (t) => {
    const s = await open(t);
    for (const id of ['m3', 'm1', 'm5', 'm2', 'm4']) await s.saveGrains(id, { id });
    const ids = async (q: Parameters<StoreBackend['listMinions']>[0]) => (await s.listMinions(q)).map((m) => m.minion);
    t.equal(await s.countMinions(), 5);
    t.same(await ids({ limit: 2 }), ['m1', 'm2']);
    t.same(await ids({ after: 'm2', limit: 2 }), ['m3', 'm4'], 'after a cursor');
    t.same(await ids({ after: 'm4' }), ['m5']);
    t.same(await ids({ offset: 3, limit: 10 }), ['m4', 'm5'], 'from an offset');
    t.same(await ids({ offset: 4 }), ['m5'], 'an offset without a limit');
    t.same(await ids({ ids: ['m4', 'm1', 'nobody'] }), ['m1', 'm4'], 'only some ids');
    t.same(await ids({ ids: [] }), []);
  });

  t.test(`${kind}: jobs, returns exactly once, queries`, async (t) => {
    const s = await open(t);
    t.equal(await s.lastJid(), null);
    await s.insertJob(job('20250101000000000001', ['web1', 'web2']));
    await s.insertJob(job('20260101000000000002', ['web1'], 'test.ping'));
    t.equal(await s.lastJid(), '20260101000000000002');
    t.ok(await s.isExpected('20250101000000000001', 'web2'));
    t.notOk(await s.isExpected('20250101000000000001', 'db1'));
    const got = await s.getJob('20250101000000000001');
    t.same([got?.target, got?.user, got?.kwarg], [['web1', 'web2'], 'ops', { test: false }]);
    const ret = { jid: '20250101000000000001', minion: 'web1', fun: 'state.apply', success: true, retcode: 0, return: { a: 1 }, started: 's', finished: 'f' };
    t.equal(await s.insertReturn(ret), true, 'stored');
    t.equal(await s.insertReturn({ ...ret, return: { a: 2 } }), false, 'a second return of that minion is ignored');
    t.same(
      (await s.returnsOf('20250101000000000001')).map((r) => [r.minion, r.success, r.return]),
      [['web1', true, { a: 1 }]],
    );
    t.same(
      await s.returnsAs('20250101000000000001', (r) => [r.minion, r.returnJson]),
      [['web1', '{"a":1}']],
      'a return as stored: its value the JSON text it was written as',
    );
    t.same(
      (await s.listJobs()).map((j) => [j.jid, j.returned]),
      [
        ['20260101000000000002', 0],
        ['20250101000000000001', 1],
      ],
    );
    t.same(
      (await s.listJobs({ fun: 'test.ping' })).map((j) => j.jid),
      ['20260101000000000002'],
    );
    t.same(
      (await s.listJobs({ minion: 'web2' })).map((j) => j.jid),
      ['20250101000000000001'],
    );
    t.same(
      (await s.listJobs({ since: '2025-06-01T00:00:00.000Z' })).map((j) => j.jid),
      ['20260101000000000002'],
    );
    t.same((await s.listJobs({ limit: 1 })).length, 1);
  });

  t.test(`${kind}: an orchestration's child jobs point at it`, async (t) => {
    const s = await open(t);
    await s.insertJob(job('20260101000000000001', ['m_master'], 'state.orchestrate'));
    await s.insertJob({ ...job('20260101000000000002', ['web1']), parent_jid: '20260101000000000001' });
    await s.insertJob(job('20260101000000000003', ['web1']));
    t.equal((await s.getJob('20260101000000000002'))?.parent_jid, '20260101000000000001');
    t.equal((await s.getJob('20260101000000000003'))?.parent_jid, null);
    t.same(
      (await s.listJobs({ parent: '20260101000000000001' })).map((j) => j.jid),
      ['20260101000000000002'],
    );
  });

  t.test(`${kind}: state results exactly once per run number, events, retention`, async (t) => {
    const s = await open(t);
    await s.insertJob(job('20250101000000000001', ['web1']));
    await s.insertStateResults('20250101000000000001', 'web1', [item(0, true), item(1, false, { diff: 'x' })]);
    // a resent batch (the minion's spool after a lost ack) changes nothing
    await s.insertStateResults('20250101000000000001', 'web1', [item(1, true), item(2, null)]);
    const rows = await s.stateResultsOf('20250101000000000001');
    t.same(
      rows.map((r) => [r.run_num, r.id, r.result, r.changes, r.sls, r.duration]),
      [
        [0, 'f0', true, {}, 'web', 1.5],
        [1, 'f1', false, { diff: 'x' }, 'web', 1.5],
        [2, 'f2', null, {}, 'web', 1.5],
      ],
    );
    t.equal((await s.stateResultsOf('20250101000000000001', 'nobody')).length, 0);
    await s.insertEvent('brine/job/1/new', { x: 1 });
    await s.insertJob(job('20990101000000000009', ['web1']));
    const pruned = await s.prune(3600, Date.parse('2030-01-01T00:00:00Z'));
    t.same(pruned, { jobs: 1, events: 1 }, 'jobs and events older than the cutoff go, jobs with their returns and states');
    t.same(await s.stateResultsOf('20250101000000000001'), []);
    t.equal(await s.lastJid(), '20990101000000000009');
  });
}

// a job's returns are read back (its report, a wait) over several turns: each row's return is
// parsed, and 2,000 highstate returns parsed in one go held the loop 110-220 ms. Turns are
// counted by a chain of setImmediate, not timed; 1,000 returns of 40 KB take more than one
// turn's budget on any machine.
for (const [kind, open] of backends) {
  t.test(`${kind}: a large job's returns are read over several turns, every one once and in order`, async (t) => {
    const s = await open(t);
    const jid = '20261128120000000001';
    const minions = Array.from({ length: 1000 }, (_, i) => `m${String(i).padStart(4, '0')}`);
    await s.insertJob(job(jid, minions));
    const states = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`file_|-f${i}_|-/tmp/f${i}_|-managed`, { result: true, comment: 'x'.repeat(300), changes: {} }]),
    );
    await Promise.all(
      minions.map((minion) => s.insertReturn({ jid, minion, fun: 'state.apply', success: true, retcode: 0, return: states, started: 's', finished: 'f' })),
    );
    const turns = countTurns();
    const rows = await s.returnsOf(jid);
    turns.stop();
    t.ok(turns.count >= 3, `read over ${turns.count} turns`);
    t.same(
      rows.map((r) => r.minion),
      minions,
      'every return once, by minion',
    );
    t.same(rows[999]!.return, states, 'each parsed whole');
  });
}

t.test('postgres: many concurrent writes commit in batches, each resolved once stored', async (t) => {
  const { store } = await freshPg(t);
  await store.insertJob(
    job(
      '20250101000000000001',
      Array.from({ length: 200 }, (_, i) => `m${i}`),
    ),
  );
  const acks = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      store.insertReturn({
        jid: '20250101000000000001',
        minion: `m${i}`,
        fun: 'test.ping',
        success: true,
        retcode: 0,
        return: true,
        started: 's',
        finished: 'f',
      }),
    ),
  );
  t.equal(acks.filter(Boolean).length, 200);
  t.equal((await store.returnsOf('20250101000000000001')).length, 200);
});

t.test('store URLs: sqlite:PATH, postgres:// without a password, password from a file', async (t) => {
  const dir = tmpDir(t);
  const sqlite = await openStore({ url: `sqlite:${path.join(dir, 'm.db')}` });
  t.equal(sqlite.kind, 'sqlite');
  await sqlite.close();
  await server.createDatabase('brine_url');
  const pgs = await openStore({ url: server.url('brine_url'), passwordFile: server.passwordFile });
  t.equal(pgs.kind, 'postgres');
  t.notMatch(pgs.location, server.password);
  await pgs.close();
  await t.rejects(openStore({ url: `postgres://brine:${server.password}@127.0.0.1:${server.port}/brine_url` }), {
    code: 'BRINE_ERR_MASTER_STORE_URL',
    message: /password in the URL/,
  });
  await t.rejects(openStore({ url: 'mysql://x/y' }), { code: 'BRINE_ERR_MASTER_STORE_URL', message: /expected sqlite:PATH or postgres:/ });
  await t.rejects(openStore({ url: server.url('brine_url'), passwordFile: path.join(dir, 'missing') }), {
    code: 'BRINE_ERR_MASTER_STORE_URL',
    message: /store_password_file/,
  });
  await t.rejects(openStore({ url: server.url('brine_url') }, { BRINE_STORE_PASSWORD: 'wrong' }), {
    code: 'BRINE_ERR_MASTER_STORE',
    message: /password authentication failed/,
  });
});

t.test('brine store migrate: a SQLite store carried into PostgreSQL, row for row, and again safely', async (t) => {
  const file = path.join(tmpDir(t), 'master.db');
  const src = SqliteBackend.open(file);
  await src.insertKey('web1', 'PUB', 'fp1', 'accepted');
  await src.saveGrains('web1', { os: 'Debian' });
  for (let j = 1; j <= 3; j++) {
    const jid = `2025010100000000000${j}`;
    await src.insertJob(job(jid, ['web1']));
    await src.insertReturn({ jid, minion: 'web1', fun: 'state.apply', success: j !== 2, retcode: j === 2 ? 2 : 0, return: { j }, started: 's', finished: 'f' });
    await src.insertStateResults(jid, 'web1', [item(0, true), item(1, j !== 2)]);
  }
  await src.insertEvent('brine/minion/web1/start', { id: 'web1' });
  await src.minePut('web1', { 'network.ip_addrs': ['10.0.0.1'] }, false);
  await src.accounts.putUser('alice', 'scrypt$h');
  await src.close();
  await server.createDatabase('brine_migrate');
  const url = server.url('brine_migrate');
  const first = await migrateSqliteToPostgres(file, url, server.password);
  t.same(Object.fromEntries(Object.entries(first).map(([k, v]) => [k, v.written])), {
    keys: 1,
    minions: 1,
    jobs: 3,
    job_minions: 3,
    returns: 3,
    state_results: 6,
    events: 1,
    mine: 1,
    users: 1,
    api_tokens: 0,
  });
  const again = await migrateSqliteToPostgres(file, url, server.password);
  t.same(
    Object.values(again).map((v) => v.written),
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    'a second run copies nothing twice',
  );
  const dst = await PgStore.open(url, server.password);
  t.teardown(() => dst.close());
  const back = SqliteBackend.open(file);
  t.teardown(() => back.close());
  t.same(await dst.listKeys(), await back.listKeys());
  t.same(await dst.listJobs(), await back.listJobs());
  t.same(await dst.returnsOf('20250101000000000002'), await back.returnsOf('20250101000000000002'));
  t.same(await dst.stateResultsOf('20250101000000000002'), await back.stateResultsOf('20250101000000000002'));
  t.same(await dst.mineGet({ minion: 'web1' }), await back.mineGet({ minion: 'web1' }));
  await t.rejects(migrateSqliteToPostgres(path.join(tmpDir(t), 'none.db'), url, server.password), { code: 'BRINE_ERR_MASTER_STORE_MIGRATE' });
});

// ---- the reactor (issue 25) ----
for (const [kind, open] of backends) {
  t.test(`${kind}: reaction claims are first-come, reactor jobs keep their depth`, async (t) => {
    const s = await open(t);
    t.equal(await s.claimReaction('ev1|rule', 'myco/x', 'master-a', 1), true, 'the first claim wins');
    t.equal(await s.claimReaction('ev1|rule', 'myco/x', 'master-b', 1), false, 'a second claim of the same event loses');
    t.equal(await s.claimReaction('ev1|other', 'myco/x', 'master-b', 1), true, 'another rule claims on its own');
    await s.noteReactorJob('20261127000000000001', 'myco/x', 2);
    await s.noteReactorJob('20261127000000000002', 'myco/y', 1);
    t.equal(await s.reactorDepthOf('20261127000000000001'), 2);
    t.equal(await s.reactorDepthOf('20261127000000000009'), undefined);
    t.same(
      (await s.reactorJobs(10)).map((r) => [r.jid, r.tag, r.depth]),
      [
        ['20261127000000000002', 'myco/y', 1],
        ['20261127000000000001', 'myco/x', 2],
      ],
    );
    await s.pruneReactions(60, Date.now() + 120_000);
    t.same(await s.reactorJobs(10), []);
    t.equal(await s.claimReaction('ev1|rule', 'myco/x', 'master-a', 1), true, 'pruned claims are gone');
  });
}

for (const [kind, open] of backends) {
  t.test(`${kind}: accounts, tokens and the audit trail (schema step 8)`, async (t) => {
    const a = (await open(t)).accounts;
    await a.putUser('alice', 'scrypt$h1');
    await a.putUser('alice', 'scrypt$h2');
    t.equal((await a.getUser('alice'))?.password, 'scrypt$h2', 'a second put changes the password');
    t.same(
      (await a.listUsers()).map((u) => u.name),
      ['alice'],
    );
    const row = {
      id: 'aa',
      username: 'alice',
      eauth: 'local',
      groups: ['ops'],
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-02T00:00:00.000Z',
      revoked_at: null,
    };
    await a.insertToken({ ...row, hash: 'H' });
    t.same(await a.tokenByHash('H'), row);
    t.equal(await a.tokenByHash('nope'), undefined);
    t.ok(await a.revokeToken('aa'));
    t.notOk(await a.revokeToken('aa'), 'revoked once');
    t.ok((await a.getToken('aa'))?.revoked_at);
    await a.insertToken({ ...row, id: 'bb', hash: 'H2' });
    t.ok(await a.removeUser('alice'));
    t.ok((await a.getToken('bb'))?.revoked_at, 'removing a user revokes their tokens');
    for (const [i, action] of ['signin', 'job.publish', 'token.create'].entries()) {
      await a.audit({
        at: `2026-01-0${i + 1}T00:00:00.000Z`,
        username: i ? 'alice' : 'bob',
        source: '127.0.0.1',
        action,
        target: 'web*',
        args: { fun: 'test.ping' },
        outcome: 'ok',
      });
    }
    t.same(
      (await a.queryAudit({})).map((r) => r.action),
      ['token.create', 'job.publish', 'signin'],
      'newest first',
    );
    t.same(
      (await a.queryAudit({ user: 'alice', action: 'job' })).map((r) => [r.username, r.action, r.target, r.args]),
      [['alice', 'job.publish', 'web*', { fun: 'test.ping' }]],
    );
    t.equal((await a.queryAudit({ since: '2026-01-02T00:00:00.000Z' })).length, 2);
    await a.prune(86400, Date.parse('2026-01-03T12:00:00.000Z'));
    t.same(
      (await a.queryAudit({})).map((r) => r.action),
      ['token.create'],
      'retention like jobs',
    );
  });
}
