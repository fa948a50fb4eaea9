import { memoryTree } from '@brine/compiler';
import { renderOrchestration, runOrchestration } from '@brine/orchestrate';
import { testModule } from '@brine/states';
import t from 'tap';
import { localFleet } from './helpers/local-fleet.ts';

const ORCH = `
db:
  salt.state:
    - tgt: db1
    - highstate: true

get_addr:
  salt.function:
    - name: pillar.get
    - tgt: db1
    - arg: [db_addr]
    - require:
      - salt: db

web:
  salt.state:
    - tgt: 'web*'
    - sls: web
    - pillar:
        db_host: \${salt:get_addr:changes:ret:db1}
        all_addrs: \${salt:get_addr:returns[*]:ret}

broken:
  salt.function:
    - name: test.false
    - tgt: web1
    - require:
      - salt: web

cleanup:
  test.succeed_with_changes:
    - onfail:
      - salt: broken

not_run:
  test.succeed_without_changes:
    - onchanges:
      - test: cleanup_never

cleanup_never:
  test.succeed_without_changes: []
`;

const tree = memoryTree({
  base: {
    'orch/main.sls': ORCH,
    'top.sls': "base:\n  'db1':\n    - db\n",
    'db.sls': 'db_installed:\n  test.succeed_with_changes: []\n',
    'web.sls': "web_conf:\n  test.configurable_test_state:\n    - name: 'db={{ pillar.db_host }}'\n    - changes: true\n    - result: true\n",
  },
});

t.test('the steps run in order with their requisites, values bound across minions', async (t) => {
  const c = renderOrchestration({ tree, sls: 'orch.main', id: 'm_master' });
  t.equal(c.failed, false, JSON.stringify(c.diagnostics));
  const fleet = localFleet({ tree, minions: ['db1', 'web1', 'web2'], pillar: (id) => (id === 'db1' ? { db_addr: '10.0.0.5' } : {}) });
  const seen: string[] = [];
  const out = await runOrchestration({ low: c.low, jobs: fleet, modules: [testModule()], onStep: (tag) => seen.push(tag) });
  const r = out.running;
  t.equal(out.retcode, 1, 'a failed step fails the orchestration');
  const db = r['salt_|-db_|-db_|-state']!;
  t.equal(db.result, true);
  t.equal(db.comment, 'States ran successfully. Updating db1.');
  t.same(Object.keys((db.changes.ret as Record<string, unknown>) ?? {}), ['db1']);
  t.equal(db.__jid__, fleet.jids[0]);
  const get = r['salt_|-get_addr_|-pillar.get_|-function']!;
  t.equal(get.comment, 'Function ran successfully. Function pillar.get ran on db1.');
  t.same(get.changes, { ret: { db1: '10.0.0.5' } });
  const web = r['salt_|-web_|-web_|-state']!;
  t.equal(web.result, true);
  t.same(web.bound_args, { pillar: { db_host: '10.0.0.5', all_addrs: ['10.0.0.5'] } }, 'the resolved values are stored');
  t.same(fleet.calls[2]!.kwarg.pillar, { db_host: '10.0.0.5', all_addrs: ['10.0.0.5'] });
  const webRet = (web.changes.ret as Record<string, Record<string, { name: string }>>).web2!;
  t.equal(Object.values(webRet)[0]!.name, 'db=10.0.0.5', 'the web minions rendered the bound pillar');
  t.equal(web.comment, 'States ran successfully. Updating web1, web2.');
  const broken = r['salt_|-broken_|-test.false_|-function']!;
  t.equal(broken.result, false);
  t.equal(broken.comment, 'Running function test.false failed on minions: web1 Function test.false ran on web1.');
  t.equal(r['test_|-cleanup_|-cleanup_|-succeed_with_changes']!.result, true, 'the onfail handler ran');
  t.equal(r['test_|-not_run_|-not_run_|-succeed_without_changes']!.result, true);
  t.equal(r['test_|-not_run_|-not_run_|-succeed_without_changes']!.comment, 'State was not run because none of the onchanges reqs changed');
  t.same(seen.slice(0, 4), [
    'salt_|-db_|-db_|-state',
    'salt_|-get_addr_|-pillar.get_|-function',
    'salt_|-web_|-web_|-state',
    'salt_|-broken_|-test.false_|-function',
  ]);
});

t.test('a targeted minion that does not return fails the step', async (t) => {
  const c = renderOrchestration({ tree, sls: 'orch.main', id: 'm_master' });
  const fleet = localFleet({ tree, minions: ['db1', 'web1', 'web2'], down: ['web2'], pillar: () => ({ db_addr: 'x' }) });
  const out = await runOrchestration({ low: c.low, jobs: fleet, modules: [testModule()] });
  const web = out.running['salt_|-web_|-web_|-state']!;
  t.equal(web.result, false);
  t.equal(web.comment, 'Run failed on minions: web2');
  t.equal(out.running['salt_|-broken_|-test.false_|-function']!.comment, 'One or more requisite failed: orch.main.web');
});

t.test('test mode: steps say what they would do', async (t) => {
  const c = renderOrchestration({ tree, sls: 'orch.main', id: 'm_master' });
  const fleet = localFleet({ tree, minions: ['db1', 'web1', 'web2'], pillar: () => ({ db_addr: 'x' }) });
  const out = await runOrchestration({ low: c.low, jobs: fleet, modules: [testModule()], test: true });
  const db = out.running['salt_|-db_|-db_|-state']!;
  t.equal(db.result, null, 'changes in test mode: None');
  t.same(fleet.calls[0]!.kwarg, { test: true });
  t.equal(out.running['salt_|-get_addr_|-pillar.get_|-function']!.comment, 'Function pillar.get would be executed on target db1');
});

t.test('wait_for_event counts the ids seen on matching tags', async (t) => {
  const tree2 = memoryTree({ base: { 'w.sls': 'wait:\n  salt.wait_for_event:\n    - name: brine/custom/*\n    - id_list: [a, b]\n    - timeout: 30\n' } });
  const c = renderOrchestration({ tree: tree2, sls: 'w', id: 'm_master' });
  const fleet = localFleet({ tree: tree2, minions: [] });
  const run = runOrchestration({ low: c.low, jobs: fleet });
  await new Promise((r) => setImmediate(r));
  fleet.fire('brine/custom/x', { id: 'a' });
  fleet.fire('brine/other', { id: 'b' });
  fleet.fire('brine/custom/y', { data: { id: 'b' } });
  const out = await run;
  const w = out.running['salt_|-wait_|-brine/custom/*_|-wait_for_event']!;
  t.equal(w.result, true);
  t.same(w.changes, { minions_seen: ['a', 'b'] });
  t.match(w.comment, /^All events seen in [\d.]+ seconds\.$/);
});

t.test('salt.runner runs a master runner; a step-level test=False still applies in a test run', async (t) => {
  const tree3 = memoryTree({
    base: {
      'r.sls':
        'nested:\n  salt.runner:\n    - name: state.orchestrate\n    - mods: other\nreal:\n  salt.state:\n    - tgt: db1\n    - sls: db\n    - test: false\n',
      'db.sls': 'x:\n  test.succeed_with_changes: []\n',
    },
  });
  const asked: unknown[] = [];
  const fleet = localFleet({
    tree: tree3,
    minions: ['db1'],
    runner: async (call) => {
      asked.push(call);
      return { jid: '20261127000000009999', success: true, ret: { data: {} } };
    },
  });
  const c = renderOrchestration({ tree: tree3, sls: 'r', id: 'm_master' });
  const out = await runOrchestration({ low: c.low, jobs: fleet });
  const r = out.running['salt_|-nested_|-state.orchestrate_|-runner']!;
  t.same([r.result, r.comment, r.__jid__], [true, "Runner function 'state.orchestrate' executed.", '20261127000000009999']);
  t.same(asked, [{ fun: 'state.orchestrate', arg: [], kwarg: { mods: 'other' } }]);
  const tested = await runOrchestration({ low: c.low, jobs: fleet, test: true });
  t.equal(tested.running['salt_|-nested_|-state.orchestrate_|-runner']!.comment, "Runner function 'state.orchestrate' would be executed.");
  t.same(fleet.calls.at(-1)!.kwarg, {}, 'test: false on the step: the minions apply for real');
  t.equal(tested.running['salt_|-real_|-real_|-state']!.result, null, 'the step still says None: the orchestration is a test run');
});

t.test('a test run never hands a minion a reference it could not resolve', async (t) => {
  const c = renderOrchestration({ tree, sls: 'orch.main', id: 'm_master' });
  const fleet = localFleet({ tree, minions: ['db1', 'web1', 'web2'], pillar: () => ({ db_addr: 'x' }) });
  const out = await runOrchestration({ low: c.low, jobs: fleet, modules: [testModule()], test: true });
  const web = out.running['salt_|-web_|-web_|-state']!;
  t.equal(web.result, null);
  t.equal(web.comment, 'state.sls would run on target web* with values bound at run time: ${salt:get_addr:changes:ret:db1}, ${salt:get_addr:returns[*]:ret}');
  t.notOk(
    fleet.calls.some((c) => JSON.stringify(c).includes('${')),
    'no job carries a reference',
  );
});
