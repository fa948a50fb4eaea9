import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { fleetTree, writeTree } from './helpers/fleet-tree.js';

const tree = fleetTree();
const cluster = new Cluster({
  minions: ['web1', 'web2', 'db1'],
  minionConfig: (id) => ({ grains: { role: id.startsWith('web') ? 'web' : 'db' } }),
  master: { file_roots: { base: [tree.states] }, pillar_roots: { base: [tree.pillar] }, timeout: 30 },
});
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(tree.dir, { recursive: true, force: true });
});

type Running = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string; __run_num__: number }>;

t.test('state.apply across three minions: per-minion top, pillar, salt:// templates', async (t) => {
  const r = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  t.same(Object.keys(r.returns).sort(), ['db1', 'web1', 'web2']);
  for (const [m, ret] of Object.entries(r.returns)) t.equal(ret.retcode, 0, `${m}: ${JSON.stringify(ret.return)}`);
  const web1 = r.returns.web1!.return as Running;
  t.same(
    Object.values(web1)
      .sort((a, b) => a.__run_num__ - b.__run_num__)
      .map((s) => s.result),
    [true, true, true, true],
  );
  t.equal(readFileSync(path.join(tree.out, 'web1/motd'), 'utf8'), 'Welcome to web1 (role web, tier frontend)\nPackages: nginx\n');
  t.equal(readFileSync(path.join(tree.out, 'db1/motd'), 'utf8'), 'Welcome to db1 (role db, tier prod)\nPackages: vim, curl\n');
  t.equal(readFileSync(path.join(tree.out, 'web2/web.conf'), 'utf8'), 'port=8080\n');
  const { states } = await cluster.client.get<{ states: Array<{ minion: string; run_num: number }> }>(`/v1/jobs/${r.jid}/states`);
  t.equal(states.length, 4 + 4 + 3, 'every state result stored');
});

const ordered = (r: Running) => Object.values(r).sort((a, b) => a.__run_num__ - b.__run_num__);

t.test('apply again: nothing changes; test=True reports without changing', async (t) => {
  const again = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  for (const m of ['web1', 'web2', 'db1']) {
    const states = ordered(again.returns[m]!.return as Running);
    t.ok(
      states.every((s) => s.result === true),
      m,
    );
    t.same(states.filter((s) => Object.keys(s.changes).length > 0).length, 0, `${m}: no changes the second time`);
  }
  writeFileSync(path.join(tree.out, 'web1/motd'), 'tampered\n');
  const dry = await cluster.run('web1', 'state.apply', [], { timeout: 30, kwarg: { test: true } });
  const motd = ordered(dry.returns.web1!.return as Running)[0]!;
  t.equal(motd.result, null, 'test mode: would change');
  t.match(motd.comment, /is set to be changed/);
  t.equal(readFileSync(path.join(tree.out, 'web1/motd'), 'utf8'), 'tampered\n', 'test mode changed nothing');
  const { last } = await cluster.client.get<{ last: Array<{ minion: string; jid: string }> }>('/v1/states/last');
  t.same(
    last.map((l) => [l.minion, l.jid]),
    [
      ['db1', again.jid],
      ['web1', again.jid],
      ['web2', again.jid],
    ],
    'test runs are not the last highstate',
  );
});

t.test('a failing state fails that minion only (pillar flag), with requisites honoured', async (t) => {
  writeTree(tree.pillar, {
    'top.sls': "base:\n  '*':\n    - common\n  'web*':\n    - web\n  'db*':\n    - db\n",
    'db.sls': 'db_fail: true\n',
  });
  const r = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  t.equal(r.returns.db1!.retcode, 2);
  t.equal(r.returns.db1!.success, false);
  t.equal(r.returns.web1!.retcode, 0);
  const db = ordered(r.returns.db1!.return as Running);
  t.same(
    db.map((s) => s.result),
    [true, true, true, false],
  );
  t.equal(db[3]!.comment, 'the database is not answering');
  const { states } = await cluster.client.get<{ states: Array<{ minion: string; id: string; jid: string }> }>('/v1/states?failed=true&since=1h');
  t.same(
    states.map((s) => [s.minion, s.id, s.jid]),
    [['db1', 'db-broken', r.jid]],
  );
  writeTree(tree.pillar, { 'db.sls': 'db_fail: false\n' });
});

t.test("a compile error on one minion is that minion's failure, with file, line and ID", async (t) => {
  const web = readFileSync(path.join(tree.states, 'web.sls'), 'utf8');
  writeTree(tree.states, {
    'web.sls': web + "{% if grains['id'] == 'web2' %}\nweb-extra:\n  test.nop: []\n  test.succeed_without_changes: []\n{% endif %}\n",
  });
  const r = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  t.equal(r.returns.web2!.retcode, 1);
  const errors = r.returns.web2!.return as string[];
  t.ok(Array.isArray(errors), 'a list of errors');
  t.match(errors.join('\n'), /web\.sls:\d+/);
  t.match(errors.join('\n'), /web-extra/);
  t.equal(r.returns.web1!.retcode, 0, 'web1 compiled and ran');
  t.equal(r.returns.db1!.retcode, 0);
  writeTree(tree.states, { 'web.sls': web });
});

t.test('show functions answer from the master compile; pillar is per minion', async (t) => {
  const top = await cluster.run('web1', 'state.show_top');
  t.same(top.returns.web1!.return, { base: ['common', 'web'] });
  const low = await cluster.run('db1', 'state.show_lowstate');
  t.same(
    (low.returns.db1!.return as Array<{ __id__: string }>).map((c) => c.__id__),
    ['motd', 'common-ready', 'db-check'],
  );
  const sls = await cluster.run('web1', 'state.show_sls', ['web']);
  t.ok((sls.returns.web1!.return as Record<string, unknown>)['web-conf']);
  const p = await cluster.run('*', 'pillar.items');
  t.same((p.returns.web1!.return as Record<string, unknown>).pkgs, ['nginx'], 'lists replaced, not merged');
  t.same((p.returns.db1!.return as Record<string, unknown>).pkgs, ['vim', 'curl']);
  t.notOk('web' in (p.returns.db1!.return as Record<string, unknown>), 'db1 does not see web pillar');
  const byPillar = await cluster.run('tier:frontend', 'test.ping', [], { tgt_type: 'pillar' });
  t.same(Object.keys(byPillar.returns).sort(), ['web1', 'web2']);
  const compound = await cluster.run('I@tier:prod and db*', 'test.ping', [], { tgt_type: 'compound' });
  t.same(Object.keys(compound.returns), ['db1']);
});

t.test('state.single and state.sls', async (t) => {
  const single = await cluster.run('db1', 'state.single', ['test.succeed_with_changes'], { kwarg: { name: 'one-off' } });
  t.equal(single.returns.db1!.retcode, 0);
  t.match(Object.values(single.returns.db1!.return as Running)[0], { result: true, changes: { testing: {} } });
  const sls = await cluster.run('web2', 'state.sls', ['web'], { timeout: 30 });
  t.same(ordered(sls.returns.web2!.return as Running).length, 2);
  const { states } = await cluster.client.get<{ states: Array<{ minion: string }>; minions: string[] }>('/v1/states?id=one-off&changed=true');
  t.same(
    states.map((s) => s.minion),
    ['db1'],
  );
});

t.test('brine run state.apply: live progress, outputter per minion, fleet summary; jobs show prints the same', async (t) => {
  const live = await cluster.brine(['run', '*', 'state.apply', '--progress', '-t', '30']);
  t.equal(live.code, 0, live.stderr);
  t.match(live.stderr, /web1: \d+ states done/);
  t.match(live.stderr, /db1: returned/);
  t.match(live.stdout, /^db1:\n/);
  t.match(live.stdout, /Summary for web2\n/);
  t.match(live.stdout, /Fleet summary for job \d{20}\n/);
  t.match(live.stdout, /Minions: 3 {2}succeeded: 3 {2}failed: 0 {2}changed: \d/);
  t.match(live.stdout, /States: {2}11 {2}succeeded: 11 {2}failed: 0/);
  t.match(live.stdout, /Slowest states:\n +\d+\.\d{3} ms {2}\S+ {2}\w+\.\w+ {2}\S+/);
  const jid = /Fleet summary for job (\d{20})/.exec(live.stdout)![1]!;
  const shown = await cluster.brine(['jobs', 'show', jid]);
  t.equal(shown.code, 0, shown.stderr);
  t.equal(shown.stdout, live.stdout, 'the stored run renders exactly like the live one');

  const failed = await cluster.brine(['jobs', 'states', '--failed', '--since', '7d']);
  t.match(failed.stdout, /db1 {2}test\.fail_without_changes {2}db-broken {2}Result: False/);
  const changed = await cluster.brine(['jobs', 'states', '--id', 'web-conf', '--changed', '--out', 'json']);
  t.same((JSON.parse(changed.stdout) as { minions: string[] }).minions, ['web1', 'web2'], 'which minions changed web-conf');
  const last = await cluster.brine(['jobs', 'last']);
  t.match(last.stdout, new RegExp(`db1 +${jid} .* succeeded {2}states: 3`));
});
