import t from 'tap';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callState, defaultRegistry } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

/**
 * file.managed's check_cmd beyond the golden case (golden/file/check_cmd): the edges where Salt
 * itself crashes or writes elsewhere. In every failing case the target keeps its bytes and mode,
 * and no temp file is left behind.
 */

const reg = defaultRegistry();
async function tmp(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'brine-check-'));
  t.teardown(() => rm(d, { recursive: true, force: true }));
  return d;
}
const call = (fun: string, name: string, extra: Record<string, unknown> = {}, test = false) => {
  const c = chunk('file', fun, name, extra);
  return callState(reg, c, ctxFor(c, { test }));
};
const mode = async (p: string) => ((await stat(p)).mode & 0o7777).toString(8);

t.test('a checker that cannot start fails the state and leaves the target (Salt raises a traceback)', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'app.conf');
  await writeFile(f, 'old\n', { mode: 0o640 });
  const r = await call('managed', f, { contents: 'new', check_cmd: `${d}/no-such-checker -q` });
  t.equal(r.result, false);
  t.match(r.comment, /^check_cmd execution failed\n.*no-such-checker: command not found$/);
  t.same(r.changes, {});
  t.equal(r.skip_watch, true);
  t.equal(await readFile(f, 'utf8'), 'old\n');
  t.equal(await mode(f), '640');
  t.same(await readdir(d), ['app.conf'], 'no temp file left');
});

t.test('the temp file has the final mode while checked; tmp_dir elsewhere still installs by rename', async (t) => {
  const d = await tmp(t);
  const other = join(d, 'checks');
  await mkdir(join(d, 'etc'));
  await mkdir(other);
  const f = join(d, 'etc', 'sudoers');
  const script = join(d, 'check.sh');
  // Accepts only a file of mode 440 in the checks folder that holds "good".
  await writeFile(
    script,
    `case "$1" in ${other}/*) ;; *) echo "not in tmp_dir"; exit 1;; esac\n[ "$(stat -c %a "$1")" = 440 ] || { echo "mode $(stat -c %a "$1")"; exit 1; }\ngrep -qx good "$1"\n`,
  );
  const r = await call('managed', f, { contents: 'good', mode: '0440', tmp_dir: other, check_cmd: `sh ${script}` });
  t.same([r.result, r.comment, r.changes], [true, `File ${f} updated`, { diff: 'New file', mode: '0440' }]);
  t.equal(await readFile(f, 'utf8'), 'good\n');
  t.equal(await mode(f), '440');
  t.same(await readdir(other), [], 'the checked temp file is gone');
  t.same(await readdir(join(d, 'etc')), ['sudoers'], 'no temp file beside the target');
});

t.test('makedirs: a rejected file creates no parent directories', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'new', 'deep', 'x.conf');
  const bad = await call('managed', f, { contents: 'x', makedirs: true, check_cmd: 'false' });
  t.same([bad.result, bad.comment], [false, 'check_cmd execution failed']);
  t.notOk(existsSync(join(d, 'new')));
  const good = await call('managed', f, { contents: 'x', makedirs: true, check_cmd: 'true' });
  t.same([good.result, good.changes], [true, { diff: 'New file' }]);
  t.equal(await readFile(f, 'utf8'), 'x\n');
});

t.test('file.serialize checks its temp file too: a rejected dataset is not written', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'data.json');
  await writeFile(f, '{}\n');
  await chmod(f, 0o600);
  const bad = await call('serialize', f, { dataset: { a: 1 }, serializer: 'json', check_cmd: 'false' });
  t.same([bad.result, bad.comment], [false, 'check_cmd execution failed']);
  t.equal(await readFile(f, 'utf8'), '{}\n');
  const good = await call('serialize', f, { dataset: { a: 1 }, serializer: 'json', check_cmd: `grep -q "a"` });
  t.equal(good.result, true);
  t.equal(await readFile(f, 'utf8'), '{\n  "a": 1\n}\n');
  t.same(await readdir(d), ['data.json']);
});
