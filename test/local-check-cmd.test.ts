import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { writeTree } from './helpers/fleet-tree.js';
import { brine } from './support/brine-cli.js';

/**
 * file.managed's check_cmd through the whole `brine local` run (runtime included): the checker
 * sees the new contents in a temp file given as its last argument, a rejected file never reaches
 * the target, and the runtime does not run the command a second time without the file.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-check-cmd-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  __id__: string;
  result: boolean | null;
  comment: string;
  changes: Record<string, unknown>;
}

const mode = (p: string) => (statSync(p).mode & 0o7777).toString(8);

t.test('a failing check leaves the target as it was; a passing one installs; test mode checks nothing', async (t) => {
  const log = path.join(dir, 'calls.log');
  // The checker records each call's arguments and accepts only a file holding a line "good".
  writeTree(dir, {
    'check.sh': `echo "$#:$*" >> ${log}\nfor f in "$@"; do :; done\ngrep -qx good "$f" || { echo "no good line in the file"; exit 1; }\n`,
    'tree/init.sls': [
      `rejected:\n  file.managed:\n    - name: ${dir}/etc/sudoers\n    - contents: bad\n    - mode: '0440'\n    - check_cmd: sh ${dir}/check.sh`,
      `accepted:\n  file.managed:\n    - name: ${dir}/etc/ok.conf\n    - contents: good\n    - mode: '0640'\n    - check_cmd: sh ${dir}/check.sh`,
      `refused-by-false:\n  file.managed:\n    - name: ${dir}/etc/false.conf\n    - contents: x\n    - check_cmd: 'false'`,
      `after-rejected:\n  cmd.run:\n    - name: touch ${dir}/watcher-ran\n    - watch:\n      - file: rejected`,
    ].join('\n'),
  });
  writeTree(dir, { 'etc/sudoers': 'root ALL=(ALL) ALL\n', 'etc/ok.conf': 'old\n', 'etc/false.conf': 'keep\n' });
  chmodSync(path.join(dir, 'etc/sudoers'), 0o400);
  const args = ['--file-root', path.join(dir, 'tree'), '--id', 'm1', '--out', 'json'];

  const dry = await brine(['local', 'state.apply', 'init', 'test=True', ...args]);
  const dryStates = Object.values(JSON.parse(dry.stdout).local as Record<string, Result>);
  t.same(
    dryStates.filter((s) => s.__id__ !== 'after-rejected').map((s) => s.result),
    [null, null, null],
  );
  t.notOk(existsSync(log), 'test mode runs no check_cmd of file.managed (as Salt)');

  const run = await brine(['local', 'state.apply', 'init', ...args]);
  const byId = Object.fromEntries(Object.values(JSON.parse(run.stdout).local as Record<string, Result>).map((s) => [s.__id__, s]));
  t.same([byId.rejected!.result, byId.rejected!.comment, byId.rejected!.changes], [false, 'check_cmd execution failed\nno good line in the file', {}]);
  t.equal(readFileSync(path.join(dir, 'etc/sudoers'), 'utf8'), 'root ALL=(ALL) ALL\n', 'the rejected contents never reached the target');
  t.equal(mode(path.join(dir, 'etc/sudoers')), '400', 'nor its mode');
  t.same([byId.accepted!.result, byId.accepted!.comment], [true, `File ${dir}/etc/ok.conf updated`]);
  t.equal(readFileSync(path.join(dir, 'etc/ok.conf'), 'utf8'), 'good\n');
  t.equal(mode(path.join(dir, 'etc/ok.conf')), '640');
  t.same([byId['refused-by-false']!.result, readFileSync(path.join(dir, 'etc/false.conf'), 'utf8')], [false, 'keep\n']);
  t.equal(byId['after-rejected']!.result, false, 'a watcher of the rejected file does not run');
  t.notOk(existsSync(path.join(dir, 'watcher-ran')));
  // Each check ran once, on a temp file (its only argument) and never on the target itself.
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  t.equal(calls.length, 2, calls.join('\n'));
  for (const c of calls) t.match(c, /^1:\//);
  t.notOk(calls.some((c) => c.endsWith('/etc/sudoers') || c.endsWith('/etc/ok.conf')));

  writeFileSync(log, '');
  const again = await brine(['local', 'state.apply', 'init', ...args]);
  const second = Object.fromEntries(Object.values(JSON.parse(again.stdout).local as Record<string, Result>).map((s) => [s.__id__, s]));
  t.same([second.accepted!.result, second.accepted!.comment], [true, `File ${dir}/etc/ok.conf is in the correct state`]);
  t.same(second.rejected!.result, false, 'the next run still refuses it (nothing was installed)');
});
