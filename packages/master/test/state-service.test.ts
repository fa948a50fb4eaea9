import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { FileServer, unsafePath } from '../src/file-server.js';
import { loadMasterTops } from '../src/master-tops.js';
import { deepMerge } from '../src/pillar.js';
import { StateService } from '../src/state-service.js';
import { CompilePool } from '../src/compile-pool.js';
import { poolConfig } from './helpers/pool-config.js';
import type { HostAnswer, HostCall } from '@brine/compiler';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
}

function tmp(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-ss-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const log = createLogger({ level: 'silent' });
const grains = { os: 'Debian', role: 'web' };

async function service(cfg: Partial<MasterConfig>): Promise<StateService> {
  const config = { ...MASTER_DEFAULTS, ...cfg } as MasterConfig;
  return new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
}

t.test('file_roots: several dirs per env, first match wins; env_order; merge strategies', async (t) => {
  const dir = tmp(t);
  write(path.join(dir, 'a'), { 'top.sls': "base:\n  '*':\n    - one\n", 'one.sls': 'from-a:\n  test.nop: []\n' });
  write(path.join(dir, 'b'), { 'one.sls': 'from-b:\n  test.nop: []\n', 'two.sls': 'two:\n  test.nop: []\n' });
  write(path.join(dir, 'dev'), { 'top.sls': "dev:\n  'web*':\n    - two\nbase:\n  '*':\n    - two\n", 'two.sls': 'dev-two:\n  test.nop: []\n' });
  const roots = { base: [path.join(dir, 'a'), path.join(dir, 'b')], dev: [path.join(dir, 'dev')] };
  const merge = await service({ file_roots: roots, pillar_roots: {} });
  const hs = await merge.compile('web1', grains, { mode: 'highstate' });
  t.notOk(hs.failed, hs.errors.join('\n'));
  t.same(
    hs.low.map((c) => c.__id__),
    ['from-a', 'dev-two'],
    'base one.sls comes from the first root',
  );
  t.same(hs.matches, { base: ['one'], dev: ['two'] });
  const ordered = await service({ file_roots: roots, pillar_roots: {}, env_order: ['dev', 'base'], top_file_merging_strategy: 'merge_all' });
  t.same(Object.keys((await ordered.compile('web1', grains, { mode: 'top' })).matches), ['dev', 'base'], 'env_order');
  const same = await service({ file_roots: roots, pillar_roots: {}, top_file_merging_strategy: 'same' });
  t.same((await same.compile('web1', grains, { mode: 'top' })).matches, { base: ['one'], dev: ['two'] });
  const all = await service({ file_roots: roots, pillar_roots: {}, top_file_merging_strategy: 'merge_all' });
  t.same((await all.compile('web1', grains, { mode: 'top' })).matches, { base: ['one', 'two'], dev: ['two'] });
});

t.test('the compile cache: same tree, grains and pillar hit; a changed file misses', async (t) => {
  const dir = tmp(t);
  write(dir, { 'top.sls': "base:\n  '*':\n    - one\n", 'one.sls': 'x:\n  test.nop: []\n' });
  const s = await service({ file_roots: { base: [dir] }, pillar_roots: {} });
  t.equal((await s.compile('m1', grains, { mode: 'highstate' })).cached, false);
  t.equal((await s.compile('m1', grains, { mode: 'highstate' })).cached, true);
  t.equal((await s.compile('m1', { ...grains, role: 'db' }, { mode: 'highstate' })).cached, false, 'grains are part of the key');
  write(dir, { 'one.sls': 'y:\n  test.nop: []\n' });
  const fresh = await s.compile('m1', grains, { mode: 'highstate' });
  t.equal(fresh.cached, false);
  t.same(
    fresh.low.map((c) => c.__id__),
    ['y'],
  );
});

t.test('pillar: own top file, rendered per minion, deep merge with lists replaced, visible to states', async (t) => {
  const dir = tmp(t);
  write(path.join(dir, 'pillar'), {
    'top.sls': "base:\n  '*':\n    - common\n  'G@role:web':\n    - match: compound\n    - web\n",
    'common.sls': 'app:\n  port: 80\n  users: [a, b]\n  name: {{ grains.id }}\n',
    'web.sls': 'include:\n  - .extra\napp:\n  users: [c]\n',
    'extra.sls': 'app:\n  tls: true\n',
  });
  write(path.join(dir, 'states'), {
    'top.sls': "base:\n  '*':\n    - s\n",
    's.sls': "port-{{ pillar['app']['port'] }}:\n  test.nop:\n    - users: {{ salt['pillar.get']('app:users') | json }}\n",
  });
  const s = await service({ file_roots: { base: [path.join(dir, 'states')] }, pillar_roots: { base: [path.join(dir, 'pillar')] } });
  t.same((await s.pillar('web1', grains)).pillar, { app: { port: 80, users: ['c'], name: 'web1', tls: true } });
  t.same((await s.pillar('db1', { role: 'db' })).pillar, { app: { port: 80, users: ['a', 'b'], name: 'db1' } });
  const c = await s.compile('web1', grains, { mode: 'highstate' });
  t.same(
    c.low.map((x) => [x.__id__, x.users]),
    [['port-80', ['c']]],
  );
  write(path.join(dir, 'pillar'), { 'web.sls': 'include:\n  - nope\n' });
  const broken = await s.compile('web1', grains, { mode: 'highstate', jid: '20250101000000000001' });
  t.ok(broken.failed);
  t.match(broken.errors.join('\n'), /pillar SLS 'nope' in environment 'base' is not available/);
  t.same(deepMerge({ a: { b: [1], c: 1 } }, { a: { b: [2] } }, true), { a: { b: [1, 2], c: 1 } }, 'pillar_merge_lists');
});

t.test('master_tops: ext_nodes, a file mapping, a plugin from a dir; a failing plugin fails its minions only', async (t) => {
  const dir = tmp(t);
  write(path.join(dir, 'states'), {
    'top.sls': "base:\n  '*':\n    - common\n",
    'common.sls': 'common:\n  test.nop: []\n',
    'classy.sls': 'classy:\n  test.nop: []\n',
    'mapped.sls': 'mapped:\n  test.nop: []\n',
    'plugged.sls': 'plugged:\n  test.nop: []\n',
  });
  const enc = path.join(dir, 'enc.sh');
  writeFileSync(enc, '#!/bin/sh\nif [ "$1" = bad1 ]; then echo nope >&2; exit 3; fi\nprintf "classes:\\n  - classy\\nenvironment: base\\n"\n');
  chmodSync(enc, 0o755);
  writeFileSync(path.join(dir, 'tops.yaml'), "'web*':\n  - mapped\n");
  mkdirSync(path.join(dir, 'plugins'));
  writeFileSync(path.join(dir, 'plugins', 'mine.mjs'), 'export function top(ctx) { return ctx.grains.role === "web" ? { base: ["plugged"] } : {}; }\n');
  const s = await service({
    file_roots: { base: [path.join(dir, 'states')] },
    pillar_roots: {},
    master_tops: { ext_nodes: enc, file: { path: path.join(dir, 'tops.yaml') }, mine: {} },
    master_tops_dirs: [path.join(dir, 'plugins')],
  });
  const web = await s.compile('web1', grains, { mode: 'highstate' });
  t.notOk(web.failed, web.errors.join('\n'));
  t.same(web.matches, { base: ['common', 'classy', 'mapped', 'plugged'] }, 'plugin matches come after the top file');
  const bad = await s.compile('bad1', grains, { mode: 'highstate' });
  t.ok(bad.failed);
  t.match(bad.errors[0], /master_tops plugin 'ext_nodes' failed for minion bad1: .*nope/);
  const missing = await service({ file_roots: { base: [path.join(dir, 'states')] }, pillar_roots: {}, master_tops: { ghost: {} } });
  t.match((await missing.compile('web1', grains, { mode: 'highstate' })).errors[0], /plugin 'ghost' is neither built in nor found/);
});

t.test('the file server: hashes, only changed bytes, escapes refused and logged', async (t) => {
  const dir = tmp(t);
  const root = path.join(dir, 'root');
  write(root, { 'files/a.txt': 'hello\n' });
  writeFileSync(path.join(dir, 'secret'), 'nope');
  symlinkSync(path.join(dir, 'secret'), path.join(root, 'files', 'out-link'));
  symlinkSync(path.join(root, 'files', 'a.txt'), path.join(root, 'files', 'in-link'));
  const lines: string[] = [];
  const spy = { ...log, warn: (o: unknown, m?: string) => void lines.push(`${JSON.stringify(o)} ${m ?? ''}`) } as unknown as typeof log;
  const s = new StateService({ ...MASTER_DEFAULTS, file_roots: { base: [root] }, pillar_roots: {} } as MasterConfig, { plugins: [], errors: [] }, spy);
  const fs = new FileServer(s.files, spy);
  const got = (await fs.get('m1', 'files/a.txt', 'base'))!;
  t.equal(Buffer.from(got.data!, 'base64').toString(), 'hello\n');
  t.match(got.hash, /^[0-9a-f]{64}$/);
  t.equal((await fs.get('m1', 'files/a.txt', 'base', got.hash))!.data, undefined, 'unchanged: no bytes');
  t.equal((await fs.get('m1', 'files/in-link', 'base'))!.hash, got.hash, 'a symlink inside the root is served');
  t.equal(await fs.get('m1', 'files/out-link', 'base'), null, 'a symlink out of the root is not there');
  t.equal(await fs.get('m1', 'files/none', 'base'), null);
  for (const bad of ['../secret', 'files/../../secret', '/etc/passwd', '%2e%2e/secret', 'files%2f..%2f..%2fsecret', 'a\\..\\b', 'C:/x']) {
    await t.rejects(fs.get('m1', bad, 'base'), { code: 'BRINE_ERR_MASTER_FILE_REFUSED' }, bad);
  }
  await t.rejects(fs.get('m1', 'x', 'nope'), { code: 'BRINE_ERR_MASTER_UNKNOWN_ENV' });
  t.equal(fs.refused, 7);
  t.ok(
    lines.some((l) => l.includes('file_refused') && l.includes('../secret')),
    'refusals are logged',
  );
  t.ok(
    lines.some((l) => l.includes('out-link')),
    'the escaping symlink is logged',
  );
  t.equal(unsafePath('ok/path.txt'), undefined);
});

t.test('a host call with nobody to ask is a coded error naming it, its file and line', async (t) => {
  const dir = tmp(t);
  write(dir, { 'top.sls': "base:\n  '*':\n    - a\n", 'a.sls': "x:\n  test.nop:\n    - v: {{ salt['cmd.run']('hostname') }}\n" });
  const s = await service({ file_roots: { base: [dir] }, pillar_roots: {} });
  const c = await s.compile('m1', grains, { mode: 'highstate' });
  t.ok(c.failed);
  t.match(c.errors[0], /^a\.sls:3:\d+: .*BRINE_ERR_COMPILE_HOST_CALL: salt\['cmd\.run'\]\("hostname"\) asks the host/);
});

/** A host per minion: answers cmd.has_exec from the tools it has, and counts the calls asked. */
function hosts(tools: Record<string, string[]>) {
  const asked: Record<string, string[]> = {};
  const askFor =
    (id: string) =>
    async (calls: HostCall[]): Promise<HostAnswer[]> => {
      (asked[id] ??= []).push(...calls.map((c) => `${c.fun}(${c.args.join(',')})`));
      return calls.map((c) => ({ ok: true, value: (tools[id] ?? []).includes(String(c.args[0])) }));
    };
  return { askFor, asked };
}

t.test('host calls are asked of the minion; minions whose hosts answer differently never share a compile', async (t) => {
  const dir = tmp(t);
  write(dir, {
    'top.sls': "base:\n  '*':\n    - a\n",
    'a.sls': "{% if salt['cmd.has_exec']('git') %}\nwith-git:\n  test.nop: []\n{% else %}\nno-git:\n  test.nop: []\n{% endif %}\n",
  });
  const s = await service({ file_roots: { base: [dir] }, pillar_roots: {} });
  const h = hosts({ m1: ['git'], m2: [], m3: ['git'] });
  const ids = async (id: string, jid: string) => (await s.compile(id, grains, { mode: 'highstate', jid }, h.askFor(id))).low.map((c) => c.__id__);
  t.same(await ids('m1', '20250101000000000001'), ['with-git']);
  t.same(await ids('m2', '20250101000000000001'), ['no-git'], 'same shape, another answer: its own compile');
  t.same(await ids('m3', '20250101000000000001'), ['with-git'], 'same shape and answers: the shared compile');
  t.equal(s.stats.shared_hits, 2, 'm2 and m3 looked at the shared compile');
  t.same(h.asked, { m1: ['cmd.has_exec(git)'], m2: ['cmd.has_exec(git)'], m3: ['cmd.has_exec(git)'] });
  // within a job a call is asked once; a new job asks again, and sees the host as it is now
  t.same(await ids('m2', '20250101000000000001'), ['no-git']);
  t.same(h.asked.m2, ['cmd.has_exec(git)']);
  const later = hosts({ m2: ['git'] });
  t.same(
    (await s.compile('m2', grains, { mode: 'highstate', jid: '20250101000000000002' }, later.askFor('m2'))).low.map((c) => c.__id__),
    ['with-git'],
  );
  t.same(later.asked.m2, ['cmd.has_exec(git)']);
});

t.test('a minion that does not answer fails its compile with the reason; the failure is not cached', async (t) => {
  const dir = tmp(t);
  write(dir, { 'top.sls': "base:\n  '*':\n    - a\n", 'a.sls': "x:\n  test.nop:\n    - u: {{ salt['user.info']('ann') }}\n" });
  const s = await service({ file_roots: { base: [dir] }, pillar_roots: {} });
  const gone = await s.compile('m1', grains, { mode: 'highstate' }, async () => {
    throw new Error('minion m1 is not connected');
  });
  t.ok(gone.failed);
  t.match(gone.errors[0], /a\.sls:3:\d+: .*BRINE_ERR_COMPILE_HOST_UNANSWERED: salt\['user\.info'\]\("ann"\): the minion 'm1' did not answer .*not connected/);
  const back = await s.compile('m1', grains, { mode: 'highstate' }, async (calls) => calls.map(() => ({ ok: true, value: { name: 'ann' } })));
  t.equal(back.failed, false);
  t.same(back.low[0]!.u, { name: 'ann' });
});

t.test('autosign_networks must be networks', async (t) => {
  const { loadMasterConfig } = await import('../src/config.js');
  t.same(loadMasterConfig(undefined, { autosign_networks: ['10.0.0.0/8', '::1', 'fd00::/8'] }).autosign_networks, ['10.0.0.0/8', '::1', 'fd00::/8']);
  for (const bad of ['10.0.0.0/33', 'nope', '10.0.0.0/8/1']) {
    t.throws(() => loadMasterConfig(undefined, { autosign_networks: [bad] }), { code: 'BRINE_ERR_MASTER_CONFIG' }, bad);
  }
});

t.test('autosign_networks: a new key from inside the network is accepted, from outside it waits', async (t) => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { SqliteBackend } = await import('../src/store-sqlite.js');
  const { EventBus } = await import('../src/event-bus.js');
  const { KeyManager } = await import('../src/keys.js');
  const store = SqliteBackend.open(path.join(tmp(t), 'm.db'));
  t.teardown(() => store.close());
  const keys = new KeyManager(store, new EventBus(store), { autoAccept: false, autosign: [], autosignNetworks: ['172.28.0.0/16'] });
  const pub = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
  t.equal((await keys.admit('inside', pub(), '172.28.3.4')).state, 'accepted');
  t.equal((await keys.admit('mapped', pub(), '::ffff:172.28.0.9')).state, 'accepted');
  t.equal((await keys.admit('outside', pub(), '10.1.2.3')).state, 'pending');
  t.equal((await keys.admit('unknown', pub())).state, 'pending');
});

t.test('identical minions share one compile unless a template reads the id', async (t) => {
  const dir = tmp(t);
  write(dir, {
    'top.sls': "base:\n  '*':\n    - common\n  'web1':\n    - mine\n",
    'common.sls': "motd:\n  file.managed:\n    - name: /etc/motd\n    - contents: {{ grains['role'] }}\n",
    'mine.sls': "who:\n  test.nop:\n    - name: {{ grains['id'] }}\n",
  });
  const s = await service({ file_roots: { base: [dir] }, pillar_roots: {} });
  const first = await s.compile('web2', grains, { mode: 'highstate' });
  const second = await s.compile('web3', grains, { mode: 'highstate' });
  t.equal(second.cached, true, 'web3 reuses what web2 compiled: the id was never read');
  t.same(second.low, first.low);
  t.equal(s.stats.shared_hits, 1);
  // web1's top file matches add an SLS that reads the id: compiled for web1 alone, never shared.
  const web1 = await s.compile('web1', grains, { mode: 'highstate' });
  t.equal(web1.cached, false);
  t.same(
    web1.low.map((c) => c.name),
    ['/etc/motd', 'web1'],
  );
  const web1b = await s.compile('web1b', grains, { mode: 'highstate' });
  t.same(
    web1b.low.map((c) => c.name),
    ['/etc/motd'],
    'different matches, different shape',
  );
  // The same matches as web1 for another id: the id-reading compile was not shared.
  write(dir, { 'top.sls': "base:\n  '*':\n    - common\n    - mine\n" });
  const a = await s.compile('a1', grains, { mode: 'highstate' });
  const b = await s.compile('b1', grains, { mode: 'highstate' });
  t.equal(b.cached, false);
  t.same([a.low[1]!.name, b.low[1]!.name], ['a1', 'b1']);
});

t.test("the master's mode: a compile asked for before the workers start waits for them, never renders in process", async (t) => {
  const config = poolConfig(t, 'brine-ss-pool-', { 'top.sls': "base:\n  '*':\n    - one\n", 'one.sls': 'x:\n  test.nop: []\n' });
  const s = new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
  s.requirePool();
  const compiled = s.compile('web1', grains, { mode: 'highstate' });
  // a negative: in process this tiny compile ends in a few milliseconds; here it must still wait
  const early = await Promise.race([compiled.then(() => 'compiled'), new Promise((r) => setTimeout(r, 300, 'waiting'))]);
  t.equal(early, 'waiting', 'no render before the workers are there');
  const pool = new CompilePool(config, log, 1);
  t.teardown(() => pool.close());
  let onWorkers = 0;
  const run = pool.run.bind(pool);
  pool.run = (...args) => (onWorkers++, run(...args));
  s.usePool(pool);
  const hs = await compiled;
  t.notOk(hs.failed, hs.errors.join('\n'));
  t.same(
    hs.low.map((c) => c.__id__),
    ['x'],
  );
  t.ok(onWorkers > 0, 'rendered on a worker');
});
