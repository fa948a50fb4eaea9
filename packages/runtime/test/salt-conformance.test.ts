import t from 'tap';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LowChunk, RunningDict } from '@brine/core';
import { runLowState } from '../src/index.js';
import { cmdModule, makeRegistry, noFiles, shellRunner, testModule } from './helpers/test-registry.js';

// Salt's own low state for every conformance case that only uses `test` and `cmd`, run through
// the runtime with the small test modules: the running dict must match Salt's record.
const root = new URL('../../../test/fixtures/conformance/', import.meta.url).pathname;
const registry = makeRegistry(testModule, cmdModule);

function comparable(running: RunningDict) {
  const out: Record<string, unknown> = {};
  for (const [tag, r] of Object.entries(running)) {
    const changes = { ...r.changes };
    delete changes.pid;
    out[tag] = { __run_num__: r.__run_num__, result: r.result, changes, comment: r.comment, __id__: r.__id__, __sls__: r.__sls__, name: r.name };
  }
  return out;
}

let cases = 0;
for (const dir of readdirSync(root)
  .filter((d) => /^p\d\d-/.test(d))
  .sort()) {
  const low = JSON.parse(readFileSync(join(root, dir, 'salt-low.json'), 'utf8')) as unknown;
  if (!Array.isArray(low) || typeof low[0] !== 'object') continue;
  const states = new Set((low as LowChunk[]).map((c) => c.state));
  if ([...states].some((s) => s !== 'test' && s !== 'cmd')) continue;
  cases++;
  for (const [file, test] of [
    ['salt-run.json', false],
    ['salt-run-test.json', true],
  ] as const) {
    t.test(`${dir} ${test ? 'test=True' : 'apply'}`, async (t) => {
      // Salt's record is the expectation: a case without it fails rather than passing untested.
      if (!existsSync(join(root, dir, file))) return t.fail(`${dir}/${file} is missing: record it with the Salt oracle`);
      const expected = JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as RunningDict;
      const seen: string[] = [];
      const out = await runLowState(low as LowChunk[], {
        registry,
        test,
        cmd: shellRunner(),
        files: noFiles,
        onResult: (tag) => seen.push(tag),
      });
      t.same(Object.keys(out.running).sort(), Object.keys(expected).sort(), 'same tags');
      t.same(comparable(out.running), comparable(expected));
      t.same(seen, Object.keys(out.running), 'onResult as each result lands');
      const failed = Object.values(expected).some((r) => r.result === false);
      t.equal(out.retcode, failed ? 2 : 0, 'retcode 2 when a state failed (salt-call --local exits 1; Brine keeps 1 for compile errors)');
      for (const r of Object.values(out.running)) {
        if (String(r.comment).startsWith('One or more requisite failed')) {
          t.notOk('start_time' in r || 'duration' in r, 'a failed requisite entry has no timing');
        } else if (!('__state_ran__' in r) && !/^(The following requisites|No changes detected)/.test(String(r.comment))) {
          t.match(r.start_time, /^\d\d:\d\d:\d\d\.\d{6}$/);
          t.type(r.duration, 'number');
        }
      }
    });
  }
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 20, `at least 20 Salt conformance cases of test and cmd states (found ${cases})`);
