import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '@brine/core';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';
import { startPostgres, type PostgresServer } from '../../../test/support/postgres.js';
import { askWithMine, MINE_MAX_FUNCTIONS, MINE_MAX_VALUE_BYTES, MineService } from '../src/mine.js';
import type { StoreBackend } from '../src/store-backend.js';
import { SqliteBackend } from '../src/store-sqlite.js';
import { PgStore } from '../src/store-pg.js';

/**
 * The mine on the master: values stored per minion and function on both backends (real SQLite,
 * a real PostgreSQL server), and mine.get's targeting over the stored grains, as Salt answers.
 */

let server: PostgresServer;
let dbs = 0;
t.before(async () => {
  server = await startPostgres();
});
t.teardown(() => server.stop());

const backends: Array<[string, (t: Test) => Promise<StoreBackend>]> = [
  [
    'sqlite',
    async (t) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-mine-'));
      const s = SqliteBackend.open(path.join(dir, 'master.db'));
      t.teardown(async () => {
        await s.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return s;
    },
  ],
  [
    'postgres',
    async (t) => {
      const name = `brine_mine${++dbs}`;
      await server.createDatabase(name);
      const s = await PgStore.open(server.url(name), server.password);
      t.teardown(() => s.close());
      return s;
    },
  ],
];

const GRAINS: Record<string, Record<string, unknown>> = {
  web1: { id: 'web1', roles: ['web'], os: 'Debian' },
  web2: { id: 'web2', roles: ['web'], os: 'Ubuntu' },
  db1: { id: 'db1', roles: ['db'], os: 'Debian' },
  gone: { id: 'gone', roles: ['db'], os: 'Debian' },
};

function service(store: StoreBackend, accepted = ['web1', 'web2', 'db1']): MineService {
  return new MineService({
    store,
    acceptedIds: async () => accepted,
    grainsOf: async (id) => GRAINS[id] ?? { id },
    pillarOf: async (id) => ({ tier: id.startsWith('db') ? 'data' : 'front' }),
    nodegroups: { dbs: 'G@roles:db' },
  });
}

for (const [kind, open] of backends) {
  t.test(`${kind}: values per minion and function, with the time of the push`, async (t) => {
    const s = await open(t);
    const before = new Date().toISOString();
    await s.minePut('web1', { 'network.ip_addrs': ['10.0.0.1'], 'test.ping': true }, false);
    await s.minePut('db1', { 'network.ip_addrs': ['10.0.0.9'] }, false);
    const rows = await s.mineGet({ funs: ['network.ip_addrs'] });
    t.same(
      rows.map((r) => [r.minion, r.fun, r.value]),
      [
        ['db1', 'network.ip_addrs', ['10.0.0.9']],
        ['web1', 'network.ip_addrs', ['10.0.0.1']],
      ],
    );
    t.ok(
      rows.every((r) => r.pushed_at >= before),
      'stored with the time of the push',
    );
    // a later push replaces that function's value and keeps the others
    await s.minePut('web1', { 'network.ip_addrs': ['10.0.0.2'] }, false);
    t.same(
      (await s.mineGet({ minion: 'web1' })).map((r) => [r.fun, r.value]),
      [
        ['network.ip_addrs', ['10.0.0.2']],
        ['test.ping', true],
      ],
    );
    // clear: the push is the whole mine of that minion
    await s.minePut('web1', { 'grains.item': { os: 'Debian' } }, true);
    t.same(
      (await s.mineGet({ minion: 'web1' })).map((r) => r.fun),
      ['grains.item'],
    );
    await s.mineDelete('web1', 'grains.item');
    t.same(await s.mineGet({ minion: 'web1' }), [], 'mine.delete');
    await s.mineDelete('db1');
    t.same(await s.mineGet({ funs: ['network.ip_addrs'] }), [], 'mine.flush');
    t.same(await s.mineGet({ funs: [] }), []);
  });

  t.test(`${kind}: mine.get targets the stored minions as Salt does`, async (t) => {
    const s = await open(t);
    const mine = service(s);
    await mine.push('web1', { 'network.ip_addrs': ['10.0.0.1'], internal_ip: '10.0.0.1' }, false);
    await mine.push('web2', { 'network.ip_addrs': ['10.0.0.2'] }, false);
    await mine.push('db1', { 'network.ip_addrs': ['10.0.0.9'] }, false);
    // a minion whose key is no longer accepted is not served
    await s.minePut('gone', { 'network.ip_addrs': ['10.0.0.66'] }, false);
    const get = (tgt: string | string[], fun: string | string[], tgt_type?: string, caller?: string, exclude_minion?: boolean) =>
      mine.get({ tgt, fun, ...(tgt_type ? { tgt_type } : {}), ...(exclude_minion ? { exclude_minion } : {}) }, caller);
    const ips = { web1: ['10.0.0.1'], web2: ['10.0.0.2'], db1: ['10.0.0.9'] };
    t.same(await get('*', 'network.ip_addrs'), ips, 'glob');
    t.same(await get('web*', 'network.ip_addrs'), { web1: ips.web1, web2: ips.web2 });
    t.same(await get('web[0-9]$', 'network.ip_addrs', 'pcre'), { web1: ips.web1, web2: ips.web2 }, 'pcre');
    t.same(await get(['db1', 'web2'], 'network.ip_addrs', 'list'), { web2: ips.web2, db1: ips.db1 }, 'list');
    t.same(await get('db1,web2', 'network.ip_addrs', 'list'), { web2: ips.web2, db1: ips.db1 }, 'list as text');
    t.same(await get('roles:db', 'network.ip_addrs', 'grain'), { db1: ips.db1 }, 'grain');
    t.same(await get('os:Ubu.*', 'network.ip_addrs', 'grain_pcre'), { web2: ips.web2 }, 'grain_pcre');
    t.same(await get('G@os:Debian and not db*', 'network.ip_addrs', 'compound'), { web1: ips.web1 }, 'compound');
    t.same(await get('tier:data', 'network.ip_addrs', 'pillar'), { db1: ips.db1 }, 'pillar');
    t.same(await get('dbs', 'network.ip_addrs', 'nodegroup'), { db1: ips.db1 }, 'nodegroup');
    t.same(await get('*', 'internal_ip'), { web1: '10.0.0.1' }, 'an alias is a function name like any other');
    t.same(await get('*', 'disk.usage'), {}, 'a function nobody pushed');
    t.same(await get('nomatch*', 'network.ip_addrs'), {}, 'a target matching nobody');
    t.same(await get('web*', 'network.ip_addrs', undefined, 'web1', true), { web2: ips.web2 }, 'exclude_minion leaves out the caller');
    t.same(
      await get('web1', 'network.ip_addrs,internal_ip'),
      { 'network.ip_addrs': { web1: ips.web1 }, internal_ip: { web1: '10.0.0.1' } },
      'several functions: by function',
    );
    t.same(await get('web*', ['internal_ip']), { internal_ip: { web1: '10.0.0.1' } }, 'a list of functions: by function too');
    t.same(await get('web2', ['internal_ip', 'network.ip_addrs']), { 'network.ip_addrs': { web2: ips.web2 } }, 'a function without values has no key');
    await t.rejects(get('*', 'network.ip_addrs', 'nosuch'), { code: 'BRINE_ERR_MASTER_BAD_REQUEST' });
    await t.rejects(get('G@', 'network.ip_addrs', 'compound'), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
  });
}

t.test('a push is bounded per function and per minion, and refused whole', async (t) => {
  const s = await backends[0]![1](t);
  const mine = service(s);
  await t.rejects(mine.push('web1', { big: 'x'.repeat(MINE_MAX_VALUE_BYTES + 1), small: 1 }, false), {
    code: 'BRINE_ERR_MASTER_MINE_TOO_LARGE',
    message: /web1.*big/,
  });
  let deep: unknown = 1;
  for (let i = 0; i < 80; i++) deep = [deep];
  await t.rejects(mine.push('web1', { deep }, false), { code: 'BRINE_ERR_MASTER_MINE_TOO_LARGE', message: /levels deep/ });
  t.same(await s.mineGet({ minion: 'web1' }), [], 'nothing of a refused push is stored');
  await t.rejects(mine.push('web1', ['x'], false), { code: 'BRINE_ERR_MASTER_BAD_REQUEST' });
  await t.rejects(mine.push('web1', { '': 1 }, false), { code: 'BRINE_ERR_MASTER_BAD_REQUEST' });
  const many = Object.fromEntries(Array.from({ length: MINE_MAX_FUNCTIONS }, (_, i) => [`f${i}`, i]));
  await mine.push('web1', many, false);
  await t.rejects(mine.push('web1', { one_more: 1 }, false), { code: 'BRINE_ERR_MASTER_MINE_TOO_MANY' });
  await mine.push('web1', { f0: 'again' }, false);
  await mine.push('web1', { fresh: 1 }, true);
  t.same(
    (await s.mineGet({ minion: 'web1' })).map((r) => r.fun),
    ['fresh'],
    'clear makes room',
  );
});

t.test("a render's mine.get calls are answered from the store; the other calls go to the host", async (t) => {
  const s = await backends[0]![1](t);
  const mine = service(s);
  await mine.push('db1', { 'network.ip_addrs': ['10.0.0.9'] }, false);
  const asked: unknown[] = [];
  const ask = askWithMine(mine, 'web1', async (calls) => {
    asked.push(...calls.map((c) => c.fun));
    return calls.map(() => ({ ok: true as const, value: 'from the host' }));
  });
  const got = await ask([
    { fun: 'cmd.has_exec', args: ['nginx'], kwargs: {} },
    { fun: 'mine.get', args: ['roles:db', 'network.ip_addrs'], kwargs: { tgt_type: 'grain' } },
    { fun: 'mine.get', args: ['*', 'nothing'], kwargs: {} },
    { fun: 'mine.get', args: ['*'], kwargs: {} },
  ]);
  t.same(asked, ['cmd.has_exec'], 'only the host call went to the host');
  t.same(got.slice(0, 3), [
    { ok: true, value: 'from the host' },
    { ok: true, value: { db1: ['10.0.0.9'] } },
    { ok: true, value: {} },
  ]);
  t.match(got[3], { ok: false, code: 'BRINE_ERR_MASTER_BAD_REQUEST' }, 'a bad call fails at its line, as a host error would');
  const noHost = askWithMine(mine, 'web1', undefined);
  t.same(
    await noHost([{ fun: 'mine.get', args: ['db1', 'network.ip_addrs'], kwargs: {} }]),
    [{ ok: true, value: { db1: ['10.0.0.9'] } }],
    'no host needed for the mine',
  );
});

t.test('pillar templates read the mine (never by pillar targets); a cached pillar follows the mine', async (t) => {
  const s = await backends[0]![1](t);
  const mine = service(s);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-mine-pillar-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  write('top.sls', "base:\n  '*':\n    - peers\n");
  write('peers.sls', "db_hosts: {{ salt['mine.get']('roles:db', 'network.ip_addrs', tgt_type='grain') | json }}\n");
  const config = { ...MASTER_DEFAULTS, file_roots: {}, pillar_roots: { base: [dir] } } as MasterConfig;
  const tops = await loadMasterTops([], []);
  const noMine = new StateService(config, tops, createLogger({ level: 'silent' }));
  t.match((await noMine.pillar('web1', GRAINS.web1!)).diagnostics, [{ code: 'BRINE_ERR_COMPILE_HOST_CALL' }], 'without the mine, a host call as before');
  const states = new StateService(config, tops, createLogger({ level: 'silent' }));
  states.useMine((id, calls) => mine.answer(calls, id, true));
  t.same((await states.pillar('web1', GRAINS.web1!)).pillar, { db_hosts: {} }, 'before the mine knows anything');
  await mine.push('db1', { 'network.ip_addrs': ['10.0.0.9'] }, false);
  t.same((await states.pillar('web1', GRAINS.web1!)).pillar, { db_hosts: { db1: ['10.0.0.9'] } }, 'the pillar follows the mine');
  t.same((await states.pillar('web1', GRAINS.web1!)).pillar, { db_hosts: { db1: ['10.0.0.9'] } }, 'served from the cache');
  await mine.delete('db1');
  t.same((await states.pillar('web1', GRAINS.web1!)).pillar, { db_hosts: {} }, 'a cached pillar is rendered again once the mine changed');
  write('peers.sls', "db_hosts: {{ salt['mine.get']('I@tier:data', 'network.ip_addrs', tgt_type='compound') | json }}\n");
  const refused = await states.pillar('web1', GRAINS.web1!);
  t.match(refused.diagnostics[0]?.message, /cannot target by pillar/, 'a pillar target in a pillar template is refused, not recursed into');
});
