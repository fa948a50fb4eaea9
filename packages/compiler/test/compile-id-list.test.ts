/**
 * The IDs of a large tree's high data are listed once per compile. Object.keys of an object of
 * thousands of keys (a dictionary in V8) sorts them by insertion on every call: about a
 * millisecond for 10,000 IDs, and five stages listed them each (split, reconcile, arg_bind,
 * verifyHigh, compileLow). Counted by wrapping Object.keys for the compile: a count, not a time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { compileHighstate, dirTree } from '../src/index.js';

const FILES = 20;
const PER_FILE = 100;

/** 2,000 states chained by require (bench/salt-compare.mjs lowstate-10k, smaller); `exclude` in the last file when asked. */
function chainTree(root: string, exclude = false): void {
  mkdirSync(join(root, 'gen'), { recursive: true });
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - gen.*\n");
  for (let f = 0; f < FILES; f++) {
    let text = exclude && f === FILES - 1 ? 'exclude:\n  - id: s_0_5\n' : '';
    for (let i = 0; i < PER_FILE; i++) {
      text += `s_${f}_${i}:\n  test.succeed_without_changes:${f === 0 && i === 0 ? ' []' : ''}\n`;
      if (i > 0 && !(f === 0 && i === 6)) text += `    - require:\n      - test: s_${f}_${i - 1}\n`;
      else if (f > 0 && i === 0) text += `    - require:\n      - test: s_${f - 1}_${PER_FILE - 1}\n`;
    }
    writeFileSync(join(root, 'gen', `f${f}.sls`), text);
  }
}

/** The compile, and how often it listed the keys of an object of 1,000 keys or more. */
function compileCounting(t: Test, root: string): { ids: string[]; lists: number } {
  const keys = Object.keys;
  let lists = 0;
  Object.keys = (o: object): string[] => {
    const k = keys(o);
    if (k.length >= 1000) lists++;
    return k;
  };
  try {
    const c = compileHighstate({ tree: dirTree({ base: [root] }), minion: { id: 'm', grains: {} } });
    t.equal(c.failed, false);
    return { ids: c.low.map((chunk) => chunk.__id__), lists };
  } finally {
    Object.keys = keys;
  }
}

t.test('a compile of 2,000 states lists its IDs once (five times before)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-ids-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  chainTree(root);
  const { ids, lists } = compileCounting(t, root);
  t.equal(ids.length, FILES * PER_FILE);
  t.equal(lists, 1);
});

t.test('after an exclude the stages list the IDs that are left', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-ids-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  chainTree(root, true);
  const { ids, lists } = compileCounting(t, root);
  t.equal(ids.length, FILES * PER_FILE - 1);
  t.notOk(ids.includes('s_0_5'));
  t.ok(ids.includes('s_0_6'));
  // listed again after the exclude, once for each stage after it
  t.ok(lists > 1);
});
