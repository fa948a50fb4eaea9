/**
 * The orchestration golden cases recorded from Salt 3007 (fixtures/salt/<case>/, FORMAT.md):
 * each case's orchestration runs through the real compiler and runtime, its minions in process
 * (local-fleet.ts: the real compiler, runtime, states and exec functions), and Brine's answer,
 * normalised as the recorder normalises Salt's, must equal Salt's step by step: the tag, the run
 * number, the result, the comment and the changes (minions' nested results included), in
 * `__run_num__` order, and the runner's retcode. This test never writes an expectation.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compilePillar, dirTree } from '@brine/compiler';
import { renderOrchestration, runOrchestration, type RunnerCall, type RunnerResult } from '@brine/orchestrate';
import { testModule } from '@brine/states';
import t from 'tap';
import { localFleet } from './helpers/local-fleet.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'salt');
const MASTER = '<master_id>_master';

interface Case {
  description: string;
  orchestrate: string;
  minions: string[];
  down_minions?: string[];
  test?: boolean;
  pillar?: Record<string, unknown> | null;
}

/**
 * Where Brine answers otherwise on purpose (README: "Where Brine differs from Salt"), by case and
 * step tag: the fields Brine's answer has instead of Salt's, and why. Nothing else is excused.
 */
const SALT_IS_WRONG: Record<string, Record<string, { why: string; brine: Record<string, unknown> }>> = {
  'no-return': {
    'salt_|-function-on-anchor-and-gone_|-test.ping_|-function': {
      why: 'Salt passes a salt.function step when an accepted, targeted minion did not return (if another did); Brine fails it',
      brine: {
        result: false,
        comment: 'Running function test.ping failed on minions: gone Function test.ping ran on anchor, gone.',
        changes: { ret: { anchor: true, gone: false } },
      },
    },
  },
};

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * Keys Brine adds to a state's result that Salt's has not: the resource contract of argument
 * binding (`old_state`/`new_state`) and the values a step's references resolved to. They are
 * Brine's own (README: argument binding); everything Salt shows is compared.
 */
const BRINE_ONLY = new Set(['old_state', 'new_state', 'bound_args']);

/**
 * The recorder's normalisation (FORMAT.md), applied to both answers; timing (`duration`,
 * `start_time`) is left out rather than zeroed: when a state that did not run carries it is the
 * runtime's business (Salt 3007 stamps requisite failures too), not the orchestration's.
 */
function normalise(v: unknown, tmp: string): Json {
  if (Array.isArray(v)) return v.map((x) => normalise(x, tmp));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(v).sort()) {
      if (BRINE_ONLY.has(k)) continue;
      const x = (v as Record<string, unknown>)[k];
      if (k === 'duration' || k === 'start_time') continue;
      else if (k === '__jid__' || k === 'jid') out[k] = '<jid>';
      else if (k === 'pid') out[k] = 0;
      else out[k] = normalise(x, tmp);
    }
    return out;
  }
  if (typeof v === 'string') return v.split(tmp).join('<tmp>');
  return (v ?? null) as Json;
}

/** One step as compared: what FORMAT.md says a golden test checks. */
function compared(tag: string, r: Record<string, Json>): Json {
  return { tag, __run_num__: r.__run_num__ ?? null, result: r.result ?? null, comment: r.comment ?? null, changes: r.changes ?? {} };
}

function steps(running: Record<string, Json>): Json[] {
  return Object.entries(running)
    .map(([tag, r]) => [tag, r as Record<string, Json>] as const)
    .sort((a, b) => Number(a[1].__run_num__) - Number(b[1].__run_num__))
    .map(([tag, r]) => compared(tag, r));
}

const cases = existsSync(FIXTURES)
  ? readdirSync(FIXTURES, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
  : [];

t.test('golden cases are present', async (t) => {
  t.ok(cases.length > 0, `case folders under ${path.relative(process.cwd(), FIXTURES)}`);
});

for (const name of cases) {
  const dir = path.join(FIXTURES, name);
  const expectedFile = path.join(dir, 'expected.json');
  t.test(name, async (t) => {
    // a case whose answer has not been recorded from Salt yet cannot be compared
    t.ok(existsSync(expectedFile), `${name}: expected.json recorded from Salt`);
    if (!existsSync(expectedFile)) return;
    const c = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as Case;
    const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as { retcode: number; return: { data?: Record<string, Json> } & Record<string, Json> };
    const roots = { base: [path.join(dir, 'tree')] };
    const tree = dirTree(roots);
    const pillarTree = existsSync(path.join(dir, 'pillar')) ? dirTree({ base: [path.join(dir, 'pillar')] }) : undefined;
    const pillarOf = (id: string) => (pillarTree ? compilePillar(pillarTree, { id, grains: { id } }).pillar : {});
    const render = (sls: string) => renderOrchestration({ tree, sls, id: MASTER, pillar: { ...pillarOf(MASTER), ...(c.pillar ?? {}) } });
    // salt.runner state.orchestrate: the nested orchestration runs here too, answered as salt-run answers
    const runner = async (call: RunnerCall): Promise<RunnerResult> => {
      const nested = await runOrchestration({ low: render(String(call.arg[0] ?? call.kwarg.mods)).low, jobs: fleet, modules: [testModule()] });
      return { jid: '<jid>', success: nested.retcode === 0, ret: { data: { [MASTER]: nested.running }, outputter: 'highstate', retcode: nested.retcode } };
    };
    const fleet = localFleet({ tree, roots, minions: c.minions, down: c.down_minions ?? [], pillar: pillarOf, runner: (call) => runner(call) });
    const compiled = render(c.orchestrate);
    const data = (expected.return.data ?? expected.return) as Record<string, Json>;
    // the master's own minion id: normalised to <master_id>_master (an early recording kept the host's)
    const want = data[MASTER] ?? Object.entries(data).find(([k]) => k.endsWith('_master'))?.[1] ?? null;
    if (compiled.failed) {
      t.same(compiled.diagnostics.map((d) => d.message) as Json, want, `${name}: the render errors`);
      return;
    }
    const out = await runOrchestration({ low: compiled.low, jobs: fleet, modules: [testModule()], ...(c.test ? { test: true } : {}) });
    const got = normalise(out.running, dir) as Record<string, Json>;
    const salt = normalise(want, dir) as Record<string, Json>;
    for (const [tag, d] of Object.entries(SALT_IS_WRONG[name] ?? {})) {
      if (salt[tag]) salt[tag] = { ...(salt[tag] as Record<string, Json>), ...(d.brine as Record<string, Json>) };
    }
    t.same(steps(got), steps(salt), `${name}: ${c.description}`);
    t.equal(out.retcode, expected.retcode, `${name}: the runner's retcode`);
  });
}
