import t from 'tap';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCommandRunner, type LowChunk, type RunningDict, type StateResult } from '@brine/core';
import { runLowState } from '@brine/runtime';
import { defaultRegistry, dirFileClient } from '@brine/states';

/**
 * End to end against real Salt: for every conformance case with a low state, Salt's own
 * salt-low.json (not Brine's compiler, which has its own golden tests) goes through the runtime
 * with the real state modules; the running dict must match salt-run.json / salt-run-test.json:
 * the same tags, `__run_num__`, `result`, `changes` (pid aside), and Salt's comments for the
 * test, cmd and file modules and for requisite outcomes.
 *
 * Where Brine deliberately differs:
 * - retcode: salt-call --local exits 1 when a state fails; Brine's runtime answers 2 (Salt's own
 *   EX_STATE_FAILURE), keeping 1 for compile errors.
 * - failed requisite entries carry no start_time/duration (no function ran).
 */
const root = fileURLToPath(new URL('./fixtures/conformance/', import.meta.url));
const registry = defaultRegistry();
const cmd = createCommandRunner();

function requisiteOutcome(comment: unknown): boolean {
  return /^(One or more requisite failed|The following requisites were not found|State was not run because|No changes detected)/.test(String(comment));
}

function view(r: StateResult, withComment: boolean) {
  const changes = { ...r.changes };
  delete changes.pid;
  const v: Record<string, unknown> = { __run_num__: r.__run_num__, result: r.result, changes, __id__: r.__id__, __sls__: r.__sls__, name: r.name };
  if (withComment) v.comment = r.comment;
  return v;
}

let cases = 0;
for (const dir of readdirSync(root)
  .filter((d) => /^p\d\d-/.test(d))
  .sort()) {
  const low = JSON.parse(readFileSync(join(root, dir, 'salt-low.json'), 'utf8')) as unknown;
  if (!Array.isArray(low) || typeof low[0] !== 'object') continue; // compile failures: the compiler's business
  const scratch = `/tmp/brine-conformance/${dir.split('-')[0]}`;
  cases++;
  for (const [file, test] of [
    ['salt-run.json', false],
    ['salt-run-test.json', true],
  ] as const) {
    if (!existsSync(join(root, dir, file))) continue;
    t.test(`${dir} ${test ? 'test=True' : 'apply'}`, async (t) => {
      rmSync(scratch, { recursive: true, force: true });
      t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
      const expected = JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as RunningDict;
      const out = await runLowState(low as LowChunk[], {
        registry,
        test,
        cmd,
        files: dirFileClient({ base: [join(root, dir, 'tree')] }),
      });
      t.same(Object.keys(out.running).sort(), Object.keys(expected).sort(), 'same tags');
      for (const [tag, want] of Object.entries(expected)) {
        const got = out.running[tag];
        if (!got) continue;
        // Comments are compared for every module (the file states agree too), not only test/cmd.
        t.same(view(got, true), view(want, true), tag);
        if (requisiteOutcome(want.comment) && want.result === false) {
          t.notOk('start_time' in got, 'no timing on a requisite failure');
        }
      }
      const failed = Object.values(expected).some((r) => r.result === false);
      t.equal(out.retcode, failed ? 2 : 0, 'retcode (salt-call --local says 1; Brine 2, see above)');
    });
  }
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 21, `at least 21 Salt conformance cases that compile (found ${cases})`);
