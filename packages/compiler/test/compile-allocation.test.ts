/**
 * What a compile of many states allocates, per state. Each object a stage makes for every state
 * (a list, a position table, an iterator result before the optimiser has the code) is paid in
 * garbage collection too: a 10,000-state show_lowstate spent about as long collecting as in any
 * one stage. Counted with V8's sampling heap profiler, which also counts what was collected: a
 * measure of bytes, not of time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';

setFlagsFromString('--expose-gc');
import { compileHighstate, dirTree } from '../src/index.js';
import { verifyLow } from '../src/verify.js';
import { allocated } from '../../../test/helpers/heap-sampling.js';
import { chainTree } from '../../../test/helpers/chain-tree.js';

const FILES = 20;
const PER_FILE = 100;

t.test('a chain of 2,000 states compiles in under 6 KB a state (12 KB before fewer objects per state)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-alloc-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  chainTree(root, FILES, PER_FILE);
  const states = FILES * PER_FILE;
  let low = 0;
  const bytes = await allocated(() => {
    const c = compileHighstate({ tree: dirTree({ base: [root] }), minion: { id: 'm', grains: {} } });
    low = c.low.length;
  });
  t.equal(low, states);
  const perState = bytes / states;
  t.ok(perState < 6000, `${Math.round(perState)} bytes a state`);
});

t.test('verifying the low state of a chain of 2,000 states makes no position map (under 455 bytes a state; 473 with one)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-alloc-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  chainTree(root, FILES, PER_FILE);
  const c = compileHighstate({ tree: dirTree({ base: [root] }), minion: { id: 'm', grains: {} } });
  let warnings = -1;
  // several runs: the profiler samples, a few hundred bytes a state need many states to count
  const runs = 8;
  const bytes = await allocated(() => {
    for (let r = 0; r < runs; r++) warnings = verifyLow(c.low, c.origins).diagnostics.length;
  });
  t.equal(warnings, 0);
  const perState = bytes / c.low.length / runs;
  t.ok(perState < 455, `${Math.round(perState)} bytes a state`);
});

t.test('the origins of a chain of 2,000 states keep under 280 bytes a state (289 with a position object per ID)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-alloc-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  chainTree(root, FILES, PER_FILE);
  const c = compileHighstate({ tree: dirTree({ base: [root] }), minion: { id: 'm', grains: {} } });
  const states = Object.keys(c.origins).length;
  t.equal(states, FILES * PER_FILE);
  // positions as before, read when asked
  t.match({ ...c.origins.s_0_0, line: c.origins.s_0_0?.line, column: c.origins.s_0_0?.column }, { file: 'gen/f0.sls', line: 1, column: 1 });
  t.equal(c.origins.s_0_1?.line, 3);
  // what the origins keep beyond the rest of the compile: the heap with and without them
  const withOrigins = kept();
  c.origins = {};
  const perState = (withOrigins - kept()) / states;
  t.ok(perState < 280, `${Math.round(perState)} bytes a state`);
});

/** Bytes on the heap after a full collection. */
function kept(): number {
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
}
