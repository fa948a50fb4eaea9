/**
 * `brine local ... --out json` hands the stream the JSON text as JSON.stringify made it, then its
 * line break: joined first, the whole text (3.6 MB for a 10,000-state show_lowstate) was copied
 * once more before being encoded for the stream. The bytes written are the same.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runLocal } from '../src/local/run-local.js';

t.test('--out json writes the text, then the line break', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-json-write-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'srv'));
  writeFileSync(join(root, 'srv', 'top.sls'), "base:\n  '*':\n    - one\n");
  writeFileSync(join(root, 'srv', 'one.sls'), 'a:\n  test.succeed_without_changes: []\n');
  const writes: string[] = [];
  const code = await runLocal(['state.show_lowstate', '--file-root', join(root, 'srv'), '--id', 'm', '--out', 'json'], {
    stdout: (text) => writes.push(text),
    stderr: () => {},
    cwd: root,
    env: {},
  });
  t.equal(code, 0);
  const text = writes.join('');
  const value = JSON.parse(text) as { local: Array<{ __id__: string }> };
  t.equal(value.local[0]!.__id__, 'a');
  t.equal(text, JSON.stringify(value, null, 4) + '\n');
  t.same(writes, [JSON.stringify(value, null, 4), '\n']);
});
