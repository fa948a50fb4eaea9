import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkTag, collectGrains, createCommandRunner, type LowChunk, type RunningDict, type StateResult } from '@brine/core';
import { compileHighstate, dirTree } from '@brine/compiler';
import { runLowState } from '@brine/runtime';
import { defaultRegistry, dirFileClient } from '@brine/states';

/**
 * The behaviours Salt's own requisite tests exercise (its functional suite under
 * tests/pytests/functional/modules/state/requisites/), each rewritten as a small case of our own
 * in test/fixtures/requisites/<case>/ with what Salt 3007.10 answered (recorded by
 * scripts/requisite-golden.mjs, never by this test). Each case goes through Brine's compiler and
 * runtime, as `brine local state.apply` runs it, with and without test=True: the same low state,
 * the same tags in the same `__run_num__` order, and the same result, changes and comment.
 *
 * Cases with a NOTE.md are where salt-behaviours.md says Salt is wrong: Brine stays
 * deliberately different and the test checks Brine's answer instead (see `deliberate` below).
 */
const root = fileURLToPath(new URL('./fixtures/requisites/', import.meta.url));
const registry = defaultRegistry();
const cmd = createCommandRunner();
// The minion's shell grain as it was where Salt recorded the cases (Salt's default on Linux
// comes from $SHELL; the oracle ran under /bin/bash).
const grains = collectGrains('anchor', { shell: '/bin/bash' });

/**
 * What a result is compared on: everything Salt printed but the timing and the pid, and
 * without Brine's own old_state/new_state (the resource contract argument binding reads).
 */
function view(r: StateResult): Record<string, unknown> {
  const { start_time: _s, duration: _d, old_state: _o, new_state: _n, ...rest } = r as StateResult & Record<string, unknown>;
  const changes = { ...(rest.changes as Record<string, unknown>) };
  delete changes.pid;
  const out: Record<string, unknown> = { ...rest, changes };
  // Salt lists failed requisites in random order (it builds the list from a set); Brine lists
  // them in declaration order (salt-behaviours.md), so only the names are compared.
  const failed = /^One or more requisite failed: (.*)$/s.exec(String(rest.comment));
  if (failed) out.comment = `One or more requisite failed: ${failed[1]!.split(', ').sort().join(', ')}`;
  return out;
}

function compile(dir: string) {
  return compileHighstate({ tree: dirTree({ base: [join(dir, 'tree')] }), minion: { id: 'anchor', grains } });
}

function prepare(dir: string, scratch: string): void {
  rmSync(scratch, { recursive: true, force: true });
  if (existsSync(join(dir, 'setup.sh'))) {
    const r = spawnSync('/bin/bash', [join(dir, 'setup.sh')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`setup.sh failed: ${r.stderr}`);
  }
}

async function apply(dir: string, test: boolean): Promise<RunningDict> {
  return (await applyOutcome(dir, test)).running;
}

async function applyOutcome(dir: string, test: boolean): Promise<{ running: RunningDict; retcode: number }> {
  const c = compile(dir);
  const out = await runLowState(c.low, {
    registry,
    test,
    cmd,
    files: dirFileClient({ base: [join(dir, 'tree')] }),
    templateContext: { grains, pillar: {}, opts: { id: 'anchor' } },
  });
  return out;
}

const byRunNum = (running: RunningDict) =>
  Object.entries(running)
    .sort(([, a], [, b]) => a.__run_num__ - b.__run_num__)
    .map(([tag]) => tag);

/** Brine's answer where it deliberately differs from Salt (salt-behaviours.md; see each NOTE.md). */
type Check = (t: Test, dir: string) => Promise<void> | void;

/** A compile error with this code, naming the SLS file. */
const refuses =
  (code: string): Check =>
  (t, dir) => {
    const c = compile(dir);
    t.ok(c.failed, 'compile fails');
    t.ok(
      c.diagnostics.some((d) => d.code === code && d.file === 'requisite.sls'),
      code,
    );
  };

/** Per mode, [tag, result, comment] in run order. */
const runs =
  (want: Record<'apply' | 'test', Array<[string, boolean | null, string | RegExp]>>): Check =>
  async (t, dir) => {
    for (const test of [false, true]) {
      const running = await apply(dir, test);
      const order = byRunNum(running);
      const rows = want[test ? 'test' : 'apply'];
      t.same(
        order,
        rows.map(([tag]) => tag),
        `${test ? 'test=True' : 'apply'}: every chunk once, in this order`,
      );
      t.same(
        order.map((tag) => running[tag]!.__run_num__),
        order.map((_, i) => i),
        'numbered 0, 1, 2, ...',
      );
      for (const [tag, result, comment] of rows) {
        t.equal(running[tag]?.result, result, `${tag} result`);
        if (typeof comment === 'string') t.equal(running[tag]?.comment, comment, `${tag} comment`);
        else t.match(running[tag]?.comment, comment, `${tag} comment`);
      }
    }
  };

const pmFailed = 'One or more requisite failed: requisite.pm_b';
const pm: Array<[string, boolean | null, string | RegExp]> = [
  ['test_|-pm_b_|-pm_b_|-nop', false, /^The following requisites were not found:\n +require:\n +name: does-not-exist\n$/],
  ['test_|-pm_a_|-pm_a_|-nop', false, pmFailed],
  ['test_|-pm_c_|-pm_c_|-nop', false, pmFailed],
];

const ran = (ids: string[], mode: 'apply' | 'test'): Array<[string, boolean | null, string]> =>
  ids.map((id) => [
    `cmd_|-${id}_|-echo ${id}_|-run`,
    mode === 'apply' ? true : null,
    `Command "echo ${id}" ${mode === 'apply' ? 'run' : 'would have been executed'}`,
  ]);
const loop = (rows: Array<[string, string]>): Array<[string, boolean | null, string]> =>
  rows.map(([id, comment]) => [`cmd_|-${id}_|-echo ${id}_|-run`, false, comment]);
const hLoop = loop([
  ['hB', 'Recursive requisite found'],
  ['hA', 'One or more requisite failed: requisite.hB'],
]);
const kLoop = loop([
  ['kC', 'Recursive requisite found'],
  ['kB', 'One or more requisite failed: requisite.kC'],
  ['kA', 'One or more requisite failed: requisite.kB, requisite.kC'],
]);

const unknownFun = (): Array<[string, boolean | null, string]> => [
  [
    'test_|-nofun_|-nofun_|-does_not_exist',
    false,
    "State 'test.does_not_exist' was not found in SLS 'requisite'\nReason: 'test.does_not_exist' is not available.\n",
  ],
  ['nosuchmod_|-nomod_|-nomod_|-thing', false, "State 'nosuchmod.thing' was not found in SLS 'requisite'\nReason: 'nosuchmod.thing' is not available.\n"],
  ['test_|-after_nofun_|-after_nofun_|-succeed_without_changes', false, 'One or more requisite failed: requisite.nofun'],
];

const deliberate: Record<string, Check> = {
  'fun01-unknown-function': runs({ apply: unknownFun(), test: unknownFun() }),
  'mix04-prereq-require-graph': runs({ apply: ran(['gD', 'gC', 'gB', 'gE', 'gA'], 'apply'), test: ran(['gD', 'gC', 'gB', 'gE', 'gA'], 'test') }),
  'mix05-require-in-against-prereq': runs({ apply: hLoop, test: hLoop }),
  'mix06-prereq-require-triangle': runs({ apply: kLoop, test: kLoop }),
  'mix07-prereq-in-and-require-in': runs({ apply: ran(['nB', 'nA'], 'apply'), test: ran(['nB', 'nA'], 'test') }),
  'pre09-prereq-missing-require': runs({ apply: pm, test: pm }),
  'pre11-prereq-fails': runs({
    apply: [
      ['test_|-pre_fail_|-pre_fail_|-configurable_test_state', false, ''],
      ['test_|-target_|-tgt_|-configurable_test_state', false, 'One or more requisite failed: requisite.pre_fail'],
      ['test_|-after_|-after_|-nop', false, 'One or more requisite failed: requisite.target'],
    ],
    test: [
      ['test_|-pre_fail_|-pre_fail_|-configurable_test_state', null, 'This is a test'],
      ['test_|-target_|-tgt_|-configurable_test_state', null, 'This is a test'],
      ['test_|-after_|-after_|-nop', true, 'Success!'],
    ],
  }),
  'pre13-prereq-recursion': refuses('BRINE_ERR_COMPILE_CYCLE'),
  'use02-use-self': refuses('BRINE_ERR_COMPILE_USE_SELF'),
  'use03-use-circular': refuses('BRINE_ERR_COMPILE_USE_CYCLE'),
};

let cases = 0;
for (const name of readdirSync(root)
  .filter((d) => existsSync(join(root, d, 'salt-low.json')))
  .sort()) {
  cases++;
  const dir = join(root, name);
  const scratch = `/tmp/brine-requisites/${name.split('-')[0]}`;
  const saltLow = JSON.parse(readFileSync(join(dir, 'salt-low.json'), 'utf8')) as unknown[];
  const special = deliberate[name];
  if (existsSync(join(dir, 'NOTE.md'))) {
    t.test(`${name}: deliberately different from Salt (NOTE.md)`, async (t) => {
      t.ok(special, 'a deliberate difference has its own check');
      if (special) await special(t, dir);
    });
    continue;
  }
  if (!saltLow.every((x) => typeof x === 'object')) {
    t.test(`${name}: Salt refuses to compile it, so does Brine`, async (t) => {
      const c = compile(dir);
      t.ok(c.failed, 'compile fails');
      t.ok(
        c.diagnostics.some((d) => d.severity === 'error'),
        'with an error diagnostic',
      );
    });
    continue;
  }
  // The low state's exact keys are the compiler's golden tests' business (test/local-conformance);
  // here the same chunks in the same order are what the run depends on.
  t.test(`${name}: low state`, async (t) => {
    const c = compile(dir);
    t.notOk(c.failed, JSON.stringify(c.diagnostics));
    t.same(c.low.map(chunkTag), (saltLow as LowChunk[]).map(chunkTag));
  });
  for (const [file, test] of [
    ['salt-run.json', false],
    ['salt-run-test.json', true],
  ] as const) {
    t.test(`${name}: ${test ? 'test=True' : 'apply'}`, async (t) => {
      const expected = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RunningDict;
      prepare(dir, scratch);
      t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
      const { running, retcode } = await applyOutcome(dir, test);
      t.same(byRunNum(running), byRunNum(expected), 'same tags, in the same order');
      // salt-call exits 1 when the run failed; Brine's runtime says 2 (1 is its compile error)
      const saltCodes = JSON.parse(readFileSync(join(dir, 'salt-retcodes.json'), 'utf8')) as Record<string, number>;
      t.equal(retcode === 0 ? 0 : 1, saltCodes[test ? 'apply_test' : 'apply'], 'the run fails where Salt says it failed');
      for (const [tag, want] of Object.entries(expected)) {
        const got = running[tag];
        if (!got) continue;
        t.same(view(got), view(want), tag);
        // Salt's onfail/onchanges tests "with_duration": a state not run still has its timing.
        if (want.__state_ran__ === false) t.type(got.duration, 'number', `${tag} has a duration`);
      }
    });
  }
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 52, `at least 52 requisite conformance cases (found ${cases})`);
