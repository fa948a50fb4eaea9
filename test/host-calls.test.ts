/**
 * Host calls through a real master and real minions: a formula-like SLS that branches on
 * `salt['cmd.has_exec']` compiles differently on two minions whose hosts differ (one has the
 * tool on its PATH), while the master renders for both; `brine validate` with nobody to ask
 * fails naming the call, the file and the line.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { brine } from './helpers/proc.js';

const TOOL = 'brine-e2e-probe-tool';
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-hostcalls-'));
const states = path.join(dir, 'states');
const bin = path.join(dir, 'bin');
const out = path.join(dir, 'out');
for (const d of [states, bin, out]) mkdirSync(d, { recursive: true });
writeFileSync(path.join(bin, TOOL), '#!/bin/sh\necho "probe $1"\n');
chmodSync(path.join(bin, TOOL), 0o755);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - probe\n");
mkdirSync(path.join(states, 'probe'));
// a map.jinja in the style community formulas use (our own text): the host facts are gathered in one place
writeFileSync(
  path.join(states, 'probe', 'map.jinja'),
  `{% set probe = {
  'installed': salt['cmd.has_exec']('${TOOL}'),
  'path': salt['cmd.which']('${TOOL}'),
} %}
`,
);
writeFileSync(
  path.join(states, 'probe', 'init.sls'),
  `{% from 'probe/map.jinja' import probe with context %}
{% if probe.installed %}
probe-run:
  cmd.run:
    - name: {{ probe.path }} {{ grains['id'] }} > ${out}/{{ grains['id'] }}.txt
{% else %}
probe-missing:
  test.succeed_without_changes:
    - comment: ${TOOL} is not installed
{% endif %}
`,
);

// reads no id: the two minions have the same shape, and the master would share one compile
writeFileSync(
  path.join(states, 'probe', 'shared.sls'),
  `{% if salt['cmd.has_exec']('${TOOL}') %}
probe-present:
  test.nop: []
{% else %}
probe-absent:
  test.nop: []
{% endif %}
`,
);

const cluster = new Cluster({
  master: { file_roots: { base: [states] }, pillar_roots: {}, timeout: 30 },
  // the same grains but the id (the pid grain set alike): to the master the two minions have one shape
  minionConfig: () => ({ grains: { pid: 1 } }),
});
t.before(async () => {
  await cluster.startMaster();
  // the two hosts differ only in what their PATH holds: the minion's environment, not a mock
  await Promise.all([
    cluster.startMinion('with-tool', {}, { PATH: `${bin}:${process.env.PATH}` }).waitEvent('minion_ready'),
    cluster.startMinion('without-tool').waitEvent('minion_ready'),
  ]);
  await cluster.waitMinionsKnown(['with-tool', 'without-tool']);
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

type Chunk = { __id__: string; state: string; fun: string; name: string };

t.test('the low state follows each host: the master asks each minion while it compiles', async (t) => {
  const low = await cluster.run('*', 'state.show_lowstate', [], { timeout: 30 });
  const withTool = low.returns['with-tool']!.return as Chunk[];
  const without = low.returns['without-tool']!.return as Chunk[];
  t.same(
    withTool.map((c) => [c.__id__, c.state, c.fun]),
    [['probe-run', 'cmd', 'run']],
  );
  t.equal(withTool[0]!.name, `${path.join(bin, TOOL)} with-tool > ${out}/with-tool.txt`);
  t.same(
    without.map((c) => [c.__id__, c.state, c.fun]),
    [['probe-missing', 'test', 'succeed_without_changes']],
  );
});

t.test('minions of the same shape share a compile only when their hosts answer alike', async (t) => {
  // one after the other: the second finds the first one's compile under its shape
  const ids = async (m: string) =>
    ((await cluster.run(m, 'state.show_low_sls', ['probe.shared'], { timeout: 30 })).returns[m]!.return as Chunk[]).map((c) => c.__id__);
  t.same(await ids('with-tool'), ['probe-present']);
  t.same(await ids('without-tool'), ['probe-absent']);
  t.same(await ids('with-tool'), ['probe-present']);
});

t.test('state.apply runs what each host compiled to', async (t) => {
  const r = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  for (const [m, ret] of Object.entries(r.returns)) t.equal(ret.retcode, 0, `${m}: ${JSON.stringify(ret.return)}`);
  const ran = Object.values(r.returns['with-tool']!.return as Record<string, { __id__: string; result: boolean }>);
  t.same(
    ran.map((s) => [s.__id__, s.result]),
    [['probe-run', true]],
  );
  t.equal(readFileSync(path.join(out, 'with-tool.txt'), 'utf8'), 'probe with-tool\n');
  const skipped = Object.values(r.returns['without-tool']!.return as Record<string, { __id__: string; comment: string }>);
  t.same(
    skipped.map((s) => [s.__id__, s.comment]),
    [['probe-missing', `${TOOL} is not installed`]],
  );
});

t.test('brine validate --minion asks that minion; without a minion it fails naming the call, file and line', async (t) => {
  const asked = await cluster.brine(['validate', 'probe', '--minion', 'with-tool']);
  t.equal(asked.code, 0, asked.stderr);
  t.same(Object.keys((JSON.parse(asked.stdout) as { high: Record<string, unknown> }).high), ['probe-run']);

  const local = await brine(['validate', 'probe', '--file-root', states, '--id', 'm1']);
  t.equal(local.code, 1);
  const errors = local.stderr.split('\n').filter((l) => l.includes('BRINE_ERR_COMPILE_HOST_CALL'));
  t.equal(errors.length, 2, local.stderr);
  t.match(errors[0], new RegExp(`probe/map\\.jinja:2:\\d+: error BRINE_ERR_COMPILE_HOST_CALL: salt\\['cmd\\.has_exec'\\]\\("${TOOL}"\\)`));
  t.match(errors[1], new RegExp(`probe/map\\.jinja:3:\\d+: error BRINE_ERR_COMPILE_HOST_CALL: salt\\['cmd\\.which'\\]\\("${TOOL}"\\)`));
});

t.test('a minion that is not connected cannot answer: its validate fails naming the call', async (t) => {
  await cluster.minions.get('without-tool')!.kill('SIGTERM');
  const gone = await cluster.brine(['validate', 'probe', '--minion', 'without-tool']);
  t.equal(gone.code, 1);
  t.match(
    gone.stderr,
    /map\.jinja:2:\d+: error BRINE_ERR_COMPILE_HOST_UNANSWERED: salt\['cmd\.has_exec'\]\("brine-e2e-probe-tool"\): the minion 'without-tool' did not answer this host call: minion without-tool is not connected/,
  );
});
