/**
 * What a compile of many states allocates, per state. Each object a stage makes for every state
 * (a list, a position table, an iterator result before the optimiser has the code) is paid in
 * garbage collection too: a 10,000-state show_lowstate spent about as long collecting as in any
 * one stage. Counted with V8's sampling heap profiler, which also counts what was collected: a
 * measure of bytes, not of time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compileHighstate, dirTree } from '../src/index.js';

const FILES = 20;
const PER_FILE = 100;

/** The bench's tree (bench/salt-compare.mjs lowstate-10k), smaller: each state requires the one before. */
function chainTree(root: string): void {
  mkdirSync(join(root, 'gen'), { recursive: true });
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - gen.*\n");
  for (let f = 0; f < FILES; f++) {
    let text = '';
    for (let i = 0; i < PER_FILE; i++) {
      text += `s_${f}_${i}:\n  test.succeed_without_changes:${f === 0 && i === 0 ? ' []' : ''}\n`;
      if (i > 0) text += `    - require:\n      - test: s_${f}_${i - 1}\n`;
      else if (f > 0) text += `    - require:\n      - test: s_${f - 1}_${PER_FILE - 1}\n`;
    }
    writeFileSync(join(root, 'gen', `f${f}.sls`), text);
  }
}

/** Bytes allocated by `fn`, collected or not (sampled every 512 bytes). */
async function allocated(fn: () => void): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    fn();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let total = 0;
    const walk = (n: typeof profile.head): void => {
      total += n.selfSize;
      n.children.forEach(walk);
    };
    walk(profile.head);
    return total;
  } finally {
    session.disconnect();
  }
}

t.test('a chain of 2,000 states compiles in under 6 KB a state (12 KB before fewer objects per state)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-alloc-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  chainTree(root);
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
