/**
 * What the fast YAML path allocates for a plain state file, per state (four lines: the ID, its
 * function, a requisite and its target). Every line of a 10,000-state tree comes here, and what
 * it makes is paid again in garbage collection: the lines were split into a list besides their
 * bodies, and each key line made an object. Counted with V8's sampling heap profiler, which also
 * counts what was collected: a measure of bytes, not of time.
 */
import t from 'tap';
import { loadYaml } from '../src/index.js';
import { allocated } from '../../../test/helpers/heap-sampling.js';
import { chainStateFile } from '../../../test/helpers/chain-tree.js';

const FILES = 20;
const PER_FILE = 100;

/** The files of bench/salt-compare.mjs lowstate-10k, 20 of its 100. */
function stateFiles(): string[] {
  const files: string[] = [];
  for (let f = 0; f < FILES; f++) files.push(chainStateFile(f, PER_FILE));
  return files;
}

t.test('2,000 plain states load in under 1,400 bytes a state (about 1,540 before, 1,220 after)', async (t) => {
  const files = stateFiles();
  // once before counting: what the first call compiles or caches is not the path's
  for (const text of files) loadYaml(text);
  const loaded: Array<ReturnType<typeof loadYaml>> = [];
  const bytes = await allocated(() => {
    for (const text of files) loaded.push(loadYaml(text));
  });
  t.ok(loaded.every((r) => r.fast));
  const states = loaded.reduce((n, r) => n + Object.keys(r.value as object).length, 0);
  t.equal(states, FILES * PER_FILE);
  const perState = bytes / states;
  t.ok(perState < 1400, `${Math.round(perState)} bytes a state`);
});
