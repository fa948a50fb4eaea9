/**
 * Orchestration end to end: one master, three real minions. The db minion's highstate, a step
 * whose argument is bound from db1's returned state, the web minions' highstate with the bound
 * values in their pillar (and a target read from the master's own pillar), a failing step whose
 * onfail handler runs; the job tree stored matches what `brine orch` showed live.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';

type Step = {
  __id__: string;
  __run_num__: number;
  result: boolean | null;
  comment: string;
  __jid__?: string;
  bound_args?: Record<string, unknown>;
  new_state?: unknown;
};
type Row = { jid: string; fun: string; parent_jid: string | null; target: string };

const ORCH = `
db:
  salt.state:
    - tgt: db1
    - highstate: true

db_info:
  salt.function:
    - name: test.echo
    - tgt: db1
    - arg:
      - "\${salt:db:ret:db1:test_|-db_password_|-s3cret_|-configurable_test_state:name}"
    - require:
      - salt: db

web:
  salt.state:
    - tgt: '{{ pillar.web_target }}'
    - highstate: true
    - pillar:
        db_token: \${salt:db_info:changes:ret:db1}
        db_host: \${salt:db:minions[0]}
    - require:
      - salt: db_info

broken:
  salt.function:
    - name: test.retcode
    - tgt: web1
    - arg: [3]
    - require:
      - salt: web

notify:
  test.succeed_with_changes:
    - comment: {{ pillar.notify_comment }}
    - onfail:
      - salt: broken
`;

const cluster = new Cluster({ minions: ['db1', 'web1', 'web2'] });

t.before(async () => {
  const states = path.join(cluster.dir, 'states');
  const pillar = path.join(cluster.dir, 'pillar');
  mkdirSync(path.join(states, 'orch'), { recursive: true });
  mkdirSync(pillar, { recursive: true });
  writeFileSync(path.join(states, 'top.sls'), "base:\n  'db1':\n    - db\n  'web*':\n    - web\n");
  writeFileSync(path.join(states, 'db.sls'), 'db_password:\n  test.configurable_test_state:\n    - name: s3cret\n    - changes: true\n    - result: true\n');
  writeFileSync(
    path.join(states, 'web.sls'),
    "web_conf:\n  test.configurable_test_state:\n    - name: 'db {{ pillar.db_host }} token {{ pillar.db_token }}'\n    - changes: true\n    - result: true\n",
  );
  writeFileSync(path.join(states, 'orch', 'site.sls'), ORCH);
  writeFileSync(path.join(states, 'orch', 'tiny.sls'), 'hello:\n  test.succeed_without_changes: []\n');
  writeFileSync(
    path.join(states, 'orch', 'wait.sls'),
    'ready:\n  salt.wait_for_event:\n    - name: myapp/ready\n    - id_list: [web1, web2]\n    - timeout: 60\ngo:\n  test.succeed_with_changes:\n    - require:\n      - salt: ready\n',
  );
  writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*_master':\n    - orch\n");
  writeFileSync(path.join(pillar, 'orch.sls'), "web_target: 'web*'\n");
  cluster.setMasterOptions({
    file_roots: { base: [states] },
    pillar_roots: { base: [pillar] },
    cluster_id: 'm1',
    // the master's own schedule runs an orchestration through the same runner
    schedule: { nightly: { function: 'state.orchestrate', args: ['orch.tiny'], hours: 24, run_on_start: true } },
  });
  await cluster.start();
});
t.teardown(() => cluster.close());

t.test('brine orch: steps in order, values bound across minions, onfail, the job tree as shown live', async (t) => {
  const r = await cluster.brine(['orch', 'orch.site', '--pillar', '{"notify_comment": "paged"}']);
  t.equal(r.code, 1, 'a failed step fails the run');
  const jid = /^orchestration (\d{20})$/m.exec(r.stderr)?.[1];
  t.ok(jid, r.stderr);
  // live: one line per step, with its child job
  const live = [...r.stderr.matchAll(/^step (\d+) (\S+) (\S+): (\S+(?: change)?)(?: \(job (\d{20})\))?$/gm)].map((m) => ({
    n: Number(m[1]),
    id: m[3],
    outcome: m[4],
    child: m[5],
  }));
  t.same(
    live.map((s) => [s.n, s.id, s.outcome]),
    [
      [0, 'db', 'changed'],
      [1, 'db_info', 'changed'],
      [2, 'web', 'changed'],
      [3, 'broken', 'failed'],
      [4, 'notify', 'changed'],
    ],
  );
  t.match(r.stdout, /m1_master:/, 'the steps under the master minion id, as Salt shows them');
  t.match(r.stdout, /Running function test\.retcode failed on minions: web1/);

  // stored: the orchestration's job, its steps, its children
  const report = await cluster.client.get<{ job: { fun: string }; returns: Record<string, { success: boolean; return: Record<string, Step> }> }>(
    `/v1/jobs/${jid}`,
  );
  t.equal(report.job.fun, 'state.orchestrate');
  const steps = Object.values(report.returns.m1_master!.return).sort((a, b) => a.__run_num__ - b.__run_num__);
  t.same(
    steps.map((s) => [s.__run_num__, s.__id__, s.__jid__]),
    live.map((s) => [s.n, s.id, s.child]),
    'the stored steps and child jids are those shown live',
  );
  const { jobs } = await cluster.client.get<{ jobs: Row[] }>(`/v1/jobs?parent=${jid}`);
  t.same(jobs.map((j) => j.jid).sort(), live.flatMap((s) => (s.child ? [s.child] : [])).sort(), 'every child job points at the orchestration');
  t.notOk(steps[0]!.new_state, 'what bindings read is not stored a second time');
  t.same(steps[2]!.bound_args, { pillar: { db_token: 's3cret', db_host: 'db1' } }, 'the resolved values are stored with the step');
  t.equal(steps[0]!.comment, 'States ran successfully. Updating db1.');
  t.equal(steps[2]!.comment, 'States ran successfully. Updating web1, web2.');
  t.equal(steps[4]!.comment, 'paged', 'the pillar= of the call reaches the render');

  // the web minions rendered the bound values into their own state
  const web = jobs.find((j) => j.fun === 'state.highstate' && j.target === 'web*')!;
  const webRun = await cluster.client.get<{ returns: Record<string, { return: Record<string, { name: string }> }> }>(`/v1/jobs/${web.jid}`);
  t.same(
    Object.values(webRun.returns).map((x) => Object.values(x.return)[0]!.name),
    ['db db1 token s3cret', 'db db1 token s3cret'],
  );

  // the replay
  const show = await cluster.brine(['jobs', 'show', jid!]);
  for (const s of live) if (s.child) t.match(show.stdout, s.child, `jobs show lists ${s.child}`);
  t.match(show.stdout, /m1_master:/);
});

t.test('brine run state.orchestrate: a runner takes no target; test=True changes nothing', async (t) => {
  const r = await cluster.brine(['run', 'state.orchestrate', 'orch.site', 'test=True', 'pillar={"notify_comment": "x"}']);
  t.match(r.stderr, /^step 0 salt\.state db: would change/m);
  t.match(r.stderr, /^step 1 salt\.function db_info: would change$/m);
  t.match(r.stdout, /Function test\.echo would be executed on target db1/);
  // an orchestration that does not render fails as Salt's does, listing the errors
  const missing = await cluster.brine(['orch', 'orch.nowhere']);
  t.equal(missing.code, 1);
  t.match(missing.stdout, /m1_master:\n\s+Data failed to compile:\n[\s\S]*orch\.nowhere/);
  // the API: a runner Brine does not have is refused; with wait, the return as salt-run gives it
  await t.rejects(cluster.client.post('/v1/runner', { fun: 'manage.up' }), { code: 'BRINE_ERR_MASTER_UNKNOWN_RUNNER' });
  const done = await cluster.client.post<{ success: boolean; return: { retcode: number; data: Record<string, unknown> } }>('/v1/runner', {
    fun: 'state.orch',
    arg: ['orch.site'],
    kwarg: { test: true, pillar: { notify_comment: 'x' } },
    wait: true,
  });
  t.same([done.success, done.return.retcode, Object.keys(done.return.data)], [true, 0, ['m1_master']]);
});

t.test("the master's schedule runs an orchestration as the user schedule:<name>", async (t) => {
  const job = await until(async () => {
    const { jobs } = await cluster.client.get<{ jobs: Array<Row & { user: string; returned: number }> }>('/v1/jobs?function=state.orchestrate');
    return jobs.find((j) => j.user === 'schedule:nightly' && j.returned === 1);
  }, 'the scheduled orchestration');
  const report = await cluster.client.get<{ returns: Record<string, { success: boolean }> }>(`/v1/jobs/${job.jid}`);
  t.same(report.returns.m1_master?.success, true);
});

t.test('salt.wait_for_event waits for the events the web minions send, then the steps that require it run', async (t) => {
  let finished: Awaited<ReturnType<Cluster['brine']>> | undefined;
  const orch = cluster.brine(['orch', 'orch.wait']).then((r) => (finished = r));
  // the minions send until the orchestration has seen both (an event sent before the step
  // started listening is not counted, as in Salt)
  const r = await until(
    async () => {
      if (finished) return finished;
      await cluster.brine(['run', 'web*', 'event.send', 'myapp/ready']);
      return finished;
    },
    'the orchestration waiting for web1 and web2',
    60_000,
  );
  await orch;
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.match(r.stderr, /^step 0 salt\.wait_for_event ready: \S+/m);
  t.match(r.stderr, /^step 1 test\.succeed_with_changes go: changed/m);
  t.match(r.stdout, /All events seen/);
});
