/**
 * `--out json` of a long list (a large show_lowstate) is made and written a chunk of items at a
 * time: one 3.6 MB string for 10,000 states, then its 3.6 MB of UTF-8 for the stream, were ~2,000
 * pages touched once. The bytes are JSON.stringify's with a 4-space indent, whatever the items,
 * and the line break is written on its own (joined, the whole text was copied once more).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { JSON_PIECE_ITEMS, writeJson } from '../src/output/format.js';
import { runLocal } from '../src/local/run-local.js';

/** What `brine local state.show_lowstate --out json` hands the stream, write by write, for the tree at `srv`. */
async function showLowstateWrites(srv: string, root: string): Promise<{ code: number; writes: string[] }> {
  const writes: string[] = [];
  const code = await runLocal(['state.show_lowstate', '--file-root', srv, '--id', 'm', '--out', 'json'], {
    stdout: (text) => writes.push(text),
    stderr: () => {},
    cwd: root,
    env: {},
  });
  return { code, writes };
}

function written(minion: string, value: unknown): string[] {
  const writes: string[] = [];
  writeJson(minion, value, (text) => writes.push(text));
  return writes;
}

t.test('the pieces join to the whole text, at every length around a chunk', async (t) => {
  const item = (i: number): unknown => ({
    s: `x${i}\n"é\u2028`,
    n: i,
    l: [[], {}, [1, { a: null }]],
    u: undefined,
    d: new Date(0),
    ...(i % 3 ? { z: [undefined, () => 1] } : {}),
  });
  for (const n of [0, 1, JSON_PIECE_ITEMS - 1, JSON_PIECE_ITEMS, JSON_PIECE_ITEMS + 1, 2 * JSON_PIECE_ITEMS, 3 * JSON_PIECE_ITEMS + 7]) {
    const value = Array.from({ length: n }, (_, i) => item(i));
    for (const minion of ['local', 'a "b" [c]: d\n', '__proto__']) {
      const writes = written(minion, value);
      t.equal(writes.join(''), JSON.stringify({ [minion]: value }, null, 4), `${n} items, minion ${JSON.stringify(minion)}`);
      t.equal(writes.length, Math.max(1, Math.ceil(n / JSON_PIECE_ITEMS)));
    }
  }
  // not lists, or short ones: whole
  for (const value of [{ a: [1, 2] }, 'text', null, [1, 2]]) t.same(written('local', value), [JSON.stringify({ local: value }, null, 4)]);
});

t.test('a 2,000-state show_lowstate --out json is written in pieces of at most a chunk of states', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-json-pieces-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'srv'));
  const names = Array.from({ length: 20 }, (_, f) => `f${f}`);
  writeFileSync(join(root, 'srv', 'top.sls'), `base:\n  '*':\n${names.map((n) => `    - ${n}\n`).join('')}`);
  for (const n of names) {
    let text = '';
    for (let i = 0; i < 100; i++) text += `${n}_${i}:\n  test.succeed_without_changes:${i ? `\n    - require:\n      - test: ${n}_${i - 1}` : ' []'}\n`;
    writeFileSync(join(root, 'srv', `${n}.sls`), text);
  }
  const { code, writes } = await showLowstateWrites(join(root, 'srv'), root);
  t.equal(code, 0);
  const text = writes.join('');
  const value = JSON.parse(text) as { local: unknown[] };
  t.equal(value.local.length, 2000);
  t.equal(text, JSON.stringify(value, null, 4) + '\n');
  t.equal(writes.length, Math.ceil(2000 / JSON_PIECE_ITEMS) + 1, 'a write a chunk of states, then the line break');
});

t.test('a short list: the text, then the line break', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-json-write-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'srv'));
  writeFileSync(join(root, 'srv', 'top.sls'), "base:\n  '*':\n    - one\n");
  writeFileSync(join(root, 'srv', 'one.sls'), 'a:\n  test.succeed_without_changes: []\n');
  const { code, writes } = await showLowstateWrites(join(root, 'srv'), root);
  t.equal(code, 0);
  const text = writes.join('');
  const value = JSON.parse(text) as { local: Array<{ __id__: string }> };
  t.equal(value.local[0]!.__id__, 'a');
  t.equal(text, JSON.stringify(value, null, 4) + '\n');
  t.same(writes, [JSON.stringify(value, null, 4), '\n']);
});
