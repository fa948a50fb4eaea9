import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BIN } from './helpers/proc.js';

/**
 * A large apply writes many files in a row; whatever the file states do to write them faster,
 * each state keeps its own result, comment, changes and new_state, in Salt's order, and a path
 * that cannot be written fails that state only.
 */
t.test('file.managed in a row: one failing path in the middle fails only its state', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-writes-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'tree');
  const out = path.join(dir, 'out');
  mkdirSync(root);
  mkdirSync(out);
  // a regular file where the third state wants a directory
  writeFileSync(path.join(out, 'blocker'), 'not a directory\n');
  const paths = [
    path.join(out, 'a.txt'),
    path.join(out, 'new', 'deep', 'b.txt'),
    path.join(out, 'blocker', 'c.txt'),
    path.join(out, 'new', 'deep', 'd.txt'),
    path.join(out, 'e.txt'),
  ];
  let sls = '';
  paths.forEach((p, i) => {
    sls += `f${i}:\n  file.managed:\n    - name: ${p}\n    - contents: "file ${i}"\n    - makedirs: True\n`;
  });
  writeFileSync(path.join(root, 'writes.sls'), sls);
  const r = spawnSync(process.execPath, [BIN, 'local', 'state.sls', 'writes', '--file-root', root, '--id', 'w', '--out', 'json'], { encoding: 'utf8' });
  t.equal(r.status, 2, r.stderr);
  const running = JSON.parse(r.stdout).local as Record<string, Record<string, unknown>>;
  const tags = Object.keys(running);
  t.equal(tags.length, 5);
  const byId = (i: number) => running[`file_|-f${i}_|-${paths[i]}_|-managed`]!;
  for (const i of [0, 1, 3, 4]) {
    const s = byId(i);
    t.same([s.result, s.comment, s.changes, s.__run_num__], [true, `File ${paths[i]} updated`, { diff: 'New file' }, i], `state ${i}`);
    t.match(s.new_state, { name: paths[i], size: `file ${i}\n`.length, sha256: /^[0-9a-f]{64}$/ });
    t.equal(readFileSync(paths[i]!, 'utf8'), `file ${i}\n`);
    t.equal(statSync(paths[i]!).mode & 0o777, 0o666 & ~process.umask(), `state ${i}: the umask's mode`);
  }
  const bad = byId(2);
  t.equal(bad.result, false);
  t.equal(bad.__run_num__, 2);
  t.same(bad.changes, {});
  t.match(bad.comment, /ENOTDIR|not a directory/i);
  t.same(readdirSync(out).sort(), ['a.txt', 'blocker', 'e.txt', 'new'], 'no temp files left');
  t.same(readdirSync(path.join(out, 'new', 'deep')).sort(), ['b.txt', 'd.txt']);
  t.end();
});
