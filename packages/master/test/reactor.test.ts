import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, type Logger } from '@brine/core';
import t from 'tap';
import { CompilePool } from '../src/compile-pool.js';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { EventBus } from '../src/event-bus.js';
import { minionEvent } from '../src/minion-event.js';
import { reactionsOf } from '../src/reactions.js';
import { renderReactor } from '../src/reactor-render.js';
import { matchRules, reactorRules, refusedTag, RuleRate, saltDataOf, saltTagOf } from '../src/reactor-rules.js';
import { Reactor, type ReactorDeps } from '../src/reactor.js';
import type { StoreBackend } from '../src/store-backend.js';
import { openStore } from '../src/store-url.js';

/**
 * The reactor on its own: rule matching (Brine's tags and Salt's names for them), the reactor
 * SLS read as Salt's ReactWrap reads it, rendering on a real compile worker, and the bounds that
 * stop a reaction triggering itself, over a real SQLite store and a real event bus.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-reactor-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Line {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}
/** A logger that keeps its lines; `logged(event)` resolves when a line of that event is written. */
function recordingLog(): { log: Logger; lines: Line[]; logged: (event: string) => Promise<Line> } {
  const lines: Line[] = [];
  const waiting: Array<{ event: string; resolve: (l: Line) => void }> = [];
  const at =
    (level: string) =>
    (obj: Record<string, unknown>, msg = '') => {
      const line = { level, obj, msg };
      lines.push(line);
      for (const w of waiting.filter((x) => x.event === obj.event)) w.resolve(line);
    };
  const log = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger;
  const logged = (event: string) => new Promise<Line>((resolve) => waiting.push({ event, resolve }));
  return { log, lines, logged };
}

t.test('rules: Salt globs over Brine tags and their Salt names', async (t) => {
  const rules = reactorRules([{ 'salt/minion/*/start': '/r/start.sls' }, { 'brine/job/*/ret/*': ['/r/a.sls', '/r/b.sls'] }, { 'myco/*': ['/r/m.sls'] }]);
  t.same(rules[1], { glob: 'brine/job/*/ret/*', files: ['/r/a.sls', '/r/b.sls'] });
  t.same(
    matchRules(rules, 'brine/minion/web1/start').map((m) => [m.rule.glob, m.tag]),
    [['salt/minion/*/start', 'salt/minion/web1/start']],
  );
  t.same(
    matchRules(rules, 'brine/job/20261127140000000000/ret/web1').map((m) => m.tag),
    ['brine/job/20261127140000000000/ret/web1'],
  );
  t.same(
    matchRules(rules, 'myco/deploy/done').map((m) => m.rule.glob),
    ['myco/*'],
    '* crosses / as in fnmatch',
  );
  t.equal(saltTagOf('brine/job/1/new'), 'salt/job/1/new');
  t.equal(saltTagOf('brine/job/1/ret/m'), 'salt/job/1/ret/m');
  t.equal(saltTagOf('brine/auth'), 'salt/auth');
  t.equal(saltTagOf('brine/job/1/prog/m'), undefined);
  t.match(saltDataOf('salt/auth', { id: 'm', act: 'pending' }), { id: 'm', act: 'pend', result: true });
  t.match(saltDataOf('salt/job/1/ret/m', { id: 'm', jid: '1' }), { cmd: '_return', id: 'm' });
});

t.test('tags a minion or operator may not fire; the shape of a minion event', async (t) => {
  t.match(refusedTag('salt/job/1/ret/web1'), /salt\/' is the master's own namespace/);
  t.match(refusedTag('brine/auth'), /brine\//);
  t.match(refusedTag(''), /empty/);
  t.match(refusedTag('a\nb'), /control/);
  t.equal(refusedTag('myco/deploy'), undefined);
  const ev = minionEvent('web1', { tag: 'myco/x', data: { v: 1 }, preload: { id: 'db1', jid: '1', extra: true } }, undefined);
  t.match(ev.data, { id: 'web1', tag: 'myco/x', data: { v: 1 }, cmd: '_minion_event', extra: true }, 'the id is the session, not the preload');
  t.notOk('jid' in ev.data, 'a jid the minion does not run is dropped');
  t.throws(() => minionEvent('web1', { tag: 'salt/auth', data: {} }, undefined), { code: 'BRINE_ERR_MASTER_EVENT_TAG' });
  t.throws(() => minionEvent('web1', { tag: 'x', data: { big: 'y'.repeat(300_000) } }, undefined), { code: 'BRINE_ERR_MASTER_EVENT_DATA' });
});

t.test("reactor SLS read as Salt's ReactWrap reads it", async (t) => {
  const high = {
    apply: { 'local.state.apply': [{ tgt: 'web*' }, { tgt_type: 'glob' }, { args: [{ mods: 'web' }, { test: true }] }, { arg: ['ignored'] }] },
    legacy: { 'cmd.cmd.run': [{ tgt: ['a', 'b'] }, { expr_form: 'list' }, { arg: ['uptime'] }, { kwarg: { cwd: '/' } }] },
    orch: { 'runner.state.orchestrate': [{ args: [{ mods: 'orch.deploy' }] }] },
    orchOld: { 'runner.state.orch': [{ mods: 'orch.old' }] },
    key: { 'wheel.key.accept': [{ match: 'web1' }] },
    bad: { 'caller.test.ping': [] },
    untargeted: { 'local.test.ping': [] },
  };
  const lines: Record<string, number> = { apply: 1, legacy: 7, orch: 12, orchOld: 15, key: 17, bad: 19, untargeted: 21 };
  const { reactions, errors } = reactionsOf(high, '/srv/reactor/r.sls', (id) => lines[id]!);
  t.same(
    reactions.map((r) => [r.id, r.kind, r.fun, r.tgt, r.tgt_type, r.arg, r.kwarg]),
    [
      ['apply', 'local', 'state.apply', 'web*', 'glob', [], { mods: 'web', test: true }],
      ['legacy', 'local', 'cmd.run', ['a', 'b'], 'list', ['uptime'], { cwd: '/' }],
      ['orch', 'runner', 'state.orchestrate', undefined, undefined, [], { mods: 'orch.deploy' }],
      ['orchOld', 'runner', 'state.orch', undefined, undefined, [], { mods: 'orch.old' }],
      ['key', 'wheel', 'key.accept', undefined, undefined, [], { match: 'web1' }],
    ],
  );
  t.same(
    errors.map((e) => [e.id, e.line]),
    [
      ['bad', 19],
      ['untargeted', 21],
    ],
  );
  t.match(errors[1]!.message, /needs a target/);
});

t.test('rendering: tag and data in the template; errors name the file and line', async (t) => {
  const ok = renderReactor({
    file: '/srv/reactor/deploy.sls',
    text: "{% if data['data']['go'] %}\ndeploy_{{ data['id'] }}:\n  local.state.apply:\n    - tgt: {{ data['data']['to'] }}\n    - args:\n      - mods: web\n{% endif %}\n",
    tag: 'myco/deploy',
    data: { id: 'a1', data: { go: true, to: 'b1' } },
  });
  t.same(ok.errors, []);
  t.same(ok.high, { deploy_a1: { 'local.state.apply': [{ tgt: 'b1' }, { args: [{ mods: 'web' }] }] } });
  t.equal(ok.lines.deploy_a1, 2);
  const bad = renderReactor({ file: '/srv/reactor/bad.sls', text: 'x:\n  local.test.ping:\n    - tgt: {{ data.nope.deeper }}\n', tag: 't', data: {} });
  t.equal(bad.high, undefined);
  t.match(bad.errors.join('\n'), /\/srv\/reactor\/bad\.sls.*3/);
});

t.test('a reactor file renders on a compile worker, not in the master process', async (t) => {
  const config = { ...MASTER_DEFAULTS, data_dir: path.join(dir, 'pool'), compile_workers: 1, render_timeout: 10 } as MasterConfig;
  const pool = new CompilePool(config, createLogger({ level: 'silent' }), 1);
  t.teardown(() => pool.close());
  const res = await pool.reactor({
    file: '/r/x.sls',
    text: 'r_{{ tag | replace("/", "_") }}:\n  local.test.ping:\n    - tgt: {{ data.id }}\n',
    tag: 'myco/x',
    data: { id: 'a1' },
  });
  t.same(res.high, { r_myco_x: { 'local.test.ping': [{ tgt: 'a1' }] } });
});

interface Harness {
  reactor: Reactor;
  bus: EventBus;
  store: StoreBackend;
  published: Array<{ tgt: unknown; fun: string; kwarg: Record<string, unknown>; user: string; jid: string }>;
  lines: Line[];
  logged: (event: string) => Promise<Line>;
}

let jidSeq = 0;
async function harness(
  t: { teardown(fn: () => unknown): void },
  files: Record<string, string>,
  rules: ReactorDeps['rules'],
  opts: {
    store?: StoreBackend;
    masterId?: string;
    rate?: number;
    maxDepth?: number;
    onPublish?: (jid: string, bus: EventBus) => void;
    runRunner?: ReactorDeps['runRunner'];
  } = {},
): Promise<Harness> {
  const store = opts.store ?? (await openStore({ url: `sqlite:${path.join(mkdtempSync(path.join(dir, 'h-')), 'master.db')}` }));
  if (!opts.store) t.teardown(() => store.close());
  const bus = new EventBus(store);
  const { log, lines, logged } = recordingLog();
  const published: Harness['published'] = [];
  const reactor = new Reactor({
    rules,
    bus,
    store,
    masterId: opts.masterId ?? null,
    render: async (task) => renderReactor(task),
    readFile: async (ref) => {
      if (!(ref in files)) throw new Error(`${ref}: no such file`);
      return files[ref]!;
    },
    publish: async (req) => {
      const jid = `2026112714000000${String(++jidSeq).padStart(4, '0')}`;
      published.push({ ...req, jid });
      opts.onPublish?.(jid, bus);
      return { jid };
    },
    wheelKey: async () => [],
    ...(opts.runRunner ? { runRunner: opts.runRunner } : {}),
    maxDepth: opts.maxDepth ?? 3,
    rate: opts.rate ?? 60,
    log,
  });
  reactor.start();
  t.teardown(() => reactor.close());
  return { reactor, bus, store, published, lines, logged };
}

/** Polls a store read until it answers (the store is real; its writes land a turn later). */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setImmediate(r));
  }
}

/** Fires an event and waits until the bus has handed it to the reactor and its reactions ran. */
async function fire(h: Harness, tag: string, data: unknown, once?: string): Promise<void> {
  const delivered = new Promise<void>((resolve) => {
    const off = h.bus.subscribe(tag, () => {
      off();
      resolve();
    });
  });
  h.bus.fire(tag, data, once);
  await delivered;
  await h.reactor.idle();
}

const APPLY = "apply_b:\n  local.state.apply:\n    - tgt: b1\n    - args:\n      - mods: web\n      - pillar: {from: {{ data['id'] }}}\n";

t.test('a matching event runs its reaction as a job of user reactor, recorded with the tag', async (t) => {
  const h = await harness(t, { '/r/apply.sls': APPLY }, [{ glob: 'myco/deploy', files: ['/r/apply.sls'] }]);
  await fire(h, 'myco/deploy', { id: 'a1', data: {} });
  await fire(h, 'myco/other', { id: 'a1' });
  t.same(
    h.published.map((p) => [p.tgt, p.fun, p.kwarg, p.user]),
    [['b1', 'state.apply', { mods: 'web', pillar: { from: 'a1' } }, 'reactor']],
  );
  await h.store.flush();
  t.match(await h.store.reactorJobs(10), [{ jid: h.published[0]!.jid, tag: 'myco/deploy', depth: 1 }]);
  t.match(
    h.lines.find((l) => l.obj.event === 'reaction'),
    { obj: { tag: 'myco/deploy', file: '/r/apply.sls', line: 1, id: 'apply_b', fun: 'local.state.apply' } },
  );
});

t.test('failed renders and reactions are logged with file and line; a runner without runners is a coded error', async (t) => {
  const h = await harness(
    t,
    {
      '/r/bad.sls': 'x:\n  local.test.ping:\n    - tgt: {{ data.a.b.c }}\n',
      '/r/orch.sls': '\n\norch:\n  runner.state.orchestrate:\n    - args:\n      - mods: orch.x\n',
    },
    [{ glob: 'myco/*', files: ['/r/bad.sls', '/r/missing.sls', '/r/orch.sls'] }],
  );
  await fire(h, 'myco/x', {});
  const errors = h.lines.filter((l) => l.level === 'error');
  t.match(errors[0], { obj: { code: 'BRINE_ERR_MASTER_REACTOR_RENDER', file: '/r/bad.sls' }, msg: /\/r\/bad\.sls.*myco\/x.*:3/ });
  t.match(errors[1], { obj: { code: 'BRINE_ERR_MASTER_REACTOR_RENDER', file: '/r/missing.sls' }, msg: /no such file/ });
  t.match(errors[2], { obj: { code: 'BRINE_ERR_MASTER_REACTOR_REACTION', file: '/r/orch.sls', line: 3 }, msg: /orch\.sls:3.*needs the master's runners/ });
  t.same(h.published, []);
});

t.test("runner reactions go through the master's runners, as user reactor, their jid recorded", async (t) => {
  const asked: unknown[] = [];
  let ran!: () => void;
  const done = new Promise<void>((r) => (ran = r));
  const h = await harness(
    t,
    { '/r/orch.sls': 'orch:\n  runner.state.orchestrate:\n    - args:\n      - mods: orch.deploy\n' },
    [{ glob: 'myco/orch', files: ['/r/orch.sls'] }],
    {
      runRunner: async (req) => {
        asked.push(req);
        setImmediate(ran);
        return { jid: '20261127000000009999', success: true, ret: {} };
      },
    },
  );
  await fire(h, 'myco/orch', {});
  await done;
  t.same(asked, [{ fun: 'state.orchestrate', arg: [], kwarg: { mods: 'orch.deploy' }, user: 'reactor' }]);
  await until(async () => ((await h.store.reactorDepthOf('20261127000000009999')) === 1 ? true : undefined));
  t.pass('the orchestration job is recorded as a reaction at depth 1');
});

t.test('a reaction that triggers itself stops at reactor_max_depth, logged', async (t) => {
  // the reaction's job sends the same event again from inside that job (event.send carries its jid)
  const loop = 'again:\n  local.event.send:\n    - tgt: a1\n    - args:\n      - tag: myco/loop\n';
  const h = await harness(t, { '/r/loop.sls': loop }, [{ glob: 'myco/loop', files: ['/r/loop.sls'] }], {
    maxDepth: 3,
    onPublish: (jid, bus) => setImmediate(() => bus.fire('myco/loop', { id: 'a1', jid, data: {} })),
  });
  // either bound ends the chain; the depth is the one that should
  const stopped = Promise.race([h.logged('reactor_loop_stopped'), h.logged('reactor_rate_limited')]);
  await fire(h, 'myco/loop', { id: 'a1', data: {} });
  await stopped;
  await h.reactor.idle();
  t.equal(h.published.length, 3, 'three reactions in the chain, the fourth refused');
  t.match(
    h.lines.find((l) => l.obj.event === 'reactor_loop_stopped'),
    { obj: { code: 'BRINE_ERR_MASTER_REACTOR_LOOP', rule: 'myco/loop', depth: 4 }, msg: /chain of 3 reactions \(reactor_max_depth 3\)/ },
  );
});

t.test('a rule reacts at most reactor_rate times a minute', async (t) => {
  const h = await harness(t, { '/r/apply.sls': APPLY }, [{ glob: 'myco/flood', files: ['/r/apply.sls'] }], { rate: 2 });
  for (let i = 0; i < 4; i++) await fire(h, 'myco/flood', { id: `m${i}` });
  t.equal(h.published.length, 2);
  t.equal(h.reactor.stats.rate_limited, 2);
  t.match(
    h.lines.find((l) => l.obj.event === 'reactor_rate_limited'),
    { obj: { code: 'BRINE_ERR_MASTER_REACTOR_RATE' } },
  );
  const rate = new RuleRate(1, () => 0);
  t.ok(rate.take('a'));
  t.notOk(rate.take('a'));
  t.ok(rate.take('b'), 'each rule has its own window');
});

t.test("in a cluster each event reacts once: another master's event is left to it; an occurrence is claimed once", async (t) => {
  const store = await openStore({ url: `sqlite:${path.join(mkdtempSync(path.join(dir, 'shared-')), 'master.db')}` });
  t.teardown(() => store.close());
  const rules = [{ glob: 'brine/job/*/ret/*', files: ['/r/apply.sls'] }];
  const a = await harness(t, { '/r/apply.sls': APPLY }, rules, { store, masterId: 'master-a' });
  const b = await harness(t, { '/r/apply.sls': APPLY }, rules, { store, masterId: 'master-b' });
  const tag = 'brine/job/20261127000000000001/ret/a1';
  // the same return stored by both masters (resent after a failover): one reaction
  await fire(a, tag, { jid: '20261127000000000001', id: 'a1' }, tag);
  await fire(b, tag, { jid: '20261127000000000001', id: 'a1' }, tag);
  t.equal(a.published.length + b.published.length, 1);
  // what a master hears from another master of the cluster is that master's to react to
  b.bus.deliver('brine/job/20261127000000000002/ret/a1', { jid: '20261127000000000002', id: 'a1' }, new Date().toISOString(), 'master-a');
  await b.reactor.idle();
  t.equal(b.published.length, 0);
});

t.test("event.fire: a minion's events reach the bus with its own id; at most EVENTS_PER_MINUTE a minute per minion", async (t) => {
  const { EVENTS_PER_MINUTE, requestHandler } = await import('../src/requests.js');
  const { PROTOCOL_VERSION } = await import('@brine/protocol');
  const fired: Array<{ tag: string; data: Record<string, unknown>; once: string }> = [];
  const handle = requestHandler({
    isExpected: async () => false,
    fireEvent: (tag: string, data: Record<string, unknown>, once: string) => fired.push({ tag, data, once }),
  } as unknown as Parameters<typeof requestHandler>[0]);
  const session = (minion: string) => ({ minion, call: false, running: new Set<string>(['20261127000000000001']) }) as unknown as Parameters<typeof handle>[0];
  const ask = (s: Parameters<typeof handle>[0], args: Record<string, unknown>) =>
    handle(s, { v: PROTOCOL_VERSION, type: 'req', id: 'r', op: 'event.fire', args });
  const m1 = session('m1');
  t.equal(await ask(m1, { tag: 'myco/x', data: { a: 1 }, jid: '20261127000000000001', eid: 'e1' }), true);
  t.match(fired[0], { tag: 'myco/x', data: { id: 'm1', data: { a: 1 }, jid: '20261127000000000001' }, once: 'minion/m1/e1' });
  await t.rejects(ask(m1, { tag: 'salt/minion/m2/start', data: {} }), { code: 'BRINE_ERR_MASTER_EVENT_TAG' });
  // a token bucket refills as time passes: flood until refused (a slow machine gets a few more through)
  let refused: unknown;
  for (let i = 0; i < 2 * EVENTS_PER_MINUTE && refused === undefined; i++) {
    await ask(m1, { tag: 'myco/flood', data: {} }).catch((e: unknown) => (refused = e));
  }
  t.match(refused, { code: 'BRINE_ERR_MASTER_EVENT_RATE', message: /m1 sends events faster than 600 a minute/ });
  t.ok(fired.length >= EVENTS_PER_MINUTE && fired.length < 2 * EVENTS_PER_MINUTE, `${fired.length} fired before the refusal, the refused one not`);
  t.equal(await ask(session('m2'), { tag: 'myco/x', data: {} }), true, 'another minion still sends its own');
});
