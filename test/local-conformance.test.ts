import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { brine, REPO } from './support/brine-cli.js';

/**
 * The public conformance cases through the real CLI: `brine local state.show_lowstate --out json`
 * must print exactly the low state Salt 3007 printed (`{"local": [...]}`), and where Salt failed
 * to compile, Brine must fail too, naming the file and line.
 */
const CASES = join(REPO, 'test/fixtures/conformance');

let cases = 0;
for (const name of readdirSync(CASES).sort()) {
  const dir = join(CASES, name);
  if (!statSync(dir).isDirectory()) continue;
  cases++;
  t.test(name, async (t) => {
    const salt = JSON.parse(readFileSync(join(dir, 'salt-low.json'), 'utf8')) as unknown[];
    const run = await brine(['local', 'state.show_lowstate', '--file-root', join(dir, 'tree'), '--id', 'anchor', '--out', 'json']);
    const printed = JSON.parse(run.stdout) as { local: unknown };
    if (salt.every((x) => typeof x === 'object')) {
      t.equal(run.code, 0, run.stderr);
      // Same chunks, order, values and key order: compare the serialised text.
      t.equal(JSON.stringify(printed.local), JSON.stringify(salt));
    } else {
      // Deliberate difference: Salt exits 0 with a list of error strings; Brine exits 1 and
      // each error names the file, line and column.
      t.equal(run.code, 1);
      t.ok(Array.isArray(printed.local));
      t.match(run.stderr, /\w+\.sls:\d+:\d+: error BRINE_ERR_COMPILE_/);
    }
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 23, `at least 23 Salt conformance cases (found ${cases})`);

t.test('state.apply through the CLI reads like salt-call (p07-watch)', async (t) => {
  const dir = join(CASES, 'p07-watch');
  const salt = JSON.parse(readFileSync(join(dir, 'salt-run.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  const run = await brine(['local', 'state.apply', '--file-root', join(dir, 'tree'), '--id', 'anchor', '--out', 'json']);
  t.equal(run.code, 0, run.stderr);
  const running = (JSON.parse(run.stdout) as { local: Record<string, Record<string, unknown>> }).local;
  t.same(Object.keys(running), Object.keys(salt));
  for (const [tag, r] of Object.entries(salt)) {
    t.equal(running[tag]!.__run_num__, r.__run_num__, `${tag} run number`);
    t.equal(running[tag]!.result, r.result, `${tag} result`);
    t.equal(running[tag]!.comment, r.comment, `${tag} comment`);
  }
  const text = await brine(['local', 'state.apply', '--file-root', join(dir, 'tree'), '--id', 'anchor']);
  t.match(text.stdout, /Summary for local\n-+\nSucceeded: 4 \(changed=2\)\nFailed: {4}0/);
});

t.test('exit codes: 2 when a state failed (p06-require), 1 for a compile error (p21)', async (t) => {
  const failed = await brine(['local', 'state.apply', '--file-root', join(CASES, 'p06-require/tree'), '--id', 'anchor', '--out', 'json']);
  t.equal(failed.code, 2);
  const broken = await brine(['local', 'state.apply', '--file-root', join(CASES, 'p21-requisite-cycle/tree'), '--id', 'anchor']);
  t.equal(broken.code, 1);
  t.match(broken.stderr, /BRINE_ERR_COMPILE_CYCLE/);
});

t.test('state.single, state.low and --state-output terse', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-single-'));
  try {
    const single = await brine(['local', 'state.single', 'file.managed', `name=${dir}/x`, 'contents=hi', '--out', 'json']);
    t.equal(single.code, 0, single.stderr);
    t.equal(readFileSync(join(dir, 'x'), 'utf8'), 'hi\n');
    const low = await brine(['local', 'state.low', JSON.stringify({ state: 'file', fun: 'absent', name: `${dir}/x` }), '--out', 'json']);
    t.equal(low.code, 0, low.stderr);
    t.throws(() => statSync(join(dir, 'x')));
    const terse = await brine(['local', 'state.apply', '--file-root', join(CASES, 'p01-basic-order/tree'), '--state-output', 'terse']);
    t.match(terse.stdout, /Name: zeta - Function: test.succeed_without_changes - Result: Clean/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t.test('test=True changes nothing (p23-file-states)', async (t) => {
  rmSync('/tmp/brine-conformance/p23', { recursive: true, force: true });
  const run = await brine(['local', 'state.apply', 'test=True', '--file-root', join(CASES, 'p23-file-states/tree'), '--id', 'anchor', '--out', 'json']);
  t.equal(run.code, 0, run.stderr);
  t.throws(() => statSync('/tmp/brine-conformance/p23'), 'nothing was created');
});

t.test('usage errors are coded and exit non-zero', async (t) => {
  const noFun = await brine(['local']);
  t.equal(noFun.code, 1);
  t.match(noFun.stderr, /BRINE_ERR_CLI_USAGE/);
  const unknown = await brine(['local', 'state.nope', '--file-root', join(CASES, 'p01-basic-order/tree')]);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /BRINE_ERR_EXEC_UNKNOWN_FUNCTION/);
  const badRoot = await brine(['local', 'state.show_top', '--file-root', '/nonexistent/brine']);
  t.match(badRoot.stderr, /BRINE_ERR_CLI_BAD_FILE_ROOT/);
});
