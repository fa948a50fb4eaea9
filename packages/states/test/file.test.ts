import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, readFile, stat, writeFile, mkdir, symlink, readdir, readlink, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callState, defaultRegistry, dirFileClient, fileDiff } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

const reg = defaultRegistry();

async function tmp(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'brine-file-'));
  t.teardown(() => rm(d, { recursive: true, force: true }));
  return d;
}
const call = (fun: string, name: string, extra: Record<string, unknown> = {}, opts: Parameters<typeof ctxFor>[1] = {}) => {
  const c = chunk('file', fun, name, extra);
  return callState(reg, c, ctxFor(c, opts));
};

t.test('diffs read like difflib', async (t) => {
  t.equal(fileDiff('old\n', 'new\n'), '--- \n+++ \n@@ -1 +1 @@\n-old\n+new\n');
  t.equal(fileDiff('a\nb\nc\nd\ne\nf\ng\nh\ni\n', 'a\nb\nc\nd\nE\nf\ng\nh\ni\n'), '--- \n+++ \n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n');
  t.equal(fileDiff('same\n', 'same\n'), '');
});

t.test('file.managed: contents, update with diff, mode, test mode, idempotence', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'conf');
  const created = await call('managed', f, { contents: 'a=1', mode: 600 });
  // Created under umask 077 as Salt does, so a 0600 file needs no mode change (Salt reports none).
  t.same(created.changes, { diff: 'New file' });
  t.equal(created.comment, `File ${f} updated`);
  t.equal(await readFile(f, 'utf8'), 'a=1\n');
  t.match(created.new_state, { name: f, mode: '0600', size: 4, sha256: /^[0-9a-f]{64}$/ });
  t.same(await readdir(d), ['conf'], 'no temp or backup files left');
  const same = await call('managed', f, { contents: 'a=1', mode: '0600' });
  t.same([same.result, same.changes, same.comment], [true, {}, `File ${f} is in the correct state`]);
  const wouldBe = await call('managed', f, { contents: ['a=2', 'b=3'], mode: '0644' }, { test: true });
  t.equal(wouldBe.result, null);
  t.same(wouldBe.changes, { diff: '--- \n+++ \n@@ -1 +1,2 @@\n-a=1\n+a=2\n+b=3\n', mode: '0644' });
  t.equal(await readFile(f, 'utf8'), 'a=1\n', 'test mode wrote nothing');
  t.equal((await stat(f)).mode & 0o777, 0o600);
  const okTest = await call('managed', f, { contents: 'a=1' }, { test: true });
  t.same([okTest.result, okTest.comment], [true, `The file ${f} is in the correct state`]);
  const upd = await call('managed', f, { contents: ['a=2', 'b=3'] });
  t.same(upd.changes, { diff: '--- \n+++ \n@@ -1 +1,2 @@\n-a=1\n+a=2\n+b=3\n' });
  t.equal((await stat(f)).mode & 0o777, 0o600, 'mode kept when not managed');
});

t.test('file.managed: salt:// source with jinja, makedirs, failures', async (t) => {
  const d = await tmp(t);
  const roots = join(d, 'roots');
  await mkdir(join(roots, 'tpl'), { recursive: true });
  await writeFile(join(roots, 'tpl/motd'), 'host {{ grains.id }} {{ extra }}\n');
  const files = dirFileClient({ base: [roots] });
  const f = join(d, 'deep/er/motd');
  const noParent = await call('managed', f, { source: 'salt://tpl/motd' }, { files });
  t.same([noParent.result, noParent.comment], [false, 'Parent directory not present']);
  const r = await call(
    'managed',
    f,
    { source: 'salt://tpl/motd', template: 'jinja', makedirs: true, defaults: { extra: 'x' } },
    { files, templateContext: { grains: { id: 'web1' } } },
  );
  t.equal(r.result, true, r.comment);
  t.equal(await readFile(f, 'utf8'), 'host web1 x\n');
  const missing = await call('managed', f, { source: 'salt://tpl/none' }, { files });
  t.same([missing.result, missing.comment], [false, "Source file salt://tpl/none not found in saltenv 'base'"]);
  const both = await call('managed', f, { source: 'salt://tpl/motd', contents: 'x' }, { files });
  t.equal(both.result, false);
  const rel = await call('managed', 'relative/path', { contents: 'x' });
  t.same([rel.result, rel.comment], [false, 'Specified file relative/path is not an absolute path']);
  const dir = await call('managed', d, { contents: 'x' });
  t.same([dir.result, dir.comment], [false, `Specified target ${d} is a directory`]);
  const hash = await call('managed', join(d, 'h'), { source: 'salt://tpl/motd', source_hash: 'sha256=00' }, { files });
  t.equal(hash.result, true, 'Salt checks source_hash only for remote sources (golden file/source_http)');
  const noUser = await call('managed', join(d, 'u'), { contents: 'x', user: 'no-such-user-brine' });
  t.same([noUser.result, noUser.comment], [false, 'User no-such-user-brine is not available ']);
});

t.test('file.managed: user and group (root only)', { skip: process.getuid?.() !== 0 ? 'needs root' : false }, async (t) => {
  const d = await tmp(t);
  const f = join(d, 'owned');
  await writeFile(f, 'x\n');
  const r = await call('managed', f, { contents: 'x', user: 'nobody', group: 'nogroup' });
  t.same(r.changes, { user: 'nobody', group: 'nogroup' });
  t.match(r.new_state, { user: 'nobody', group: 'nogroup' });
});

t.test('file.directory: mode, clean, test mode', async (t) => {
  const d = await tmp(t);
  const dir = join(d, 'a/b');
  const noParent = await call('directory', dir);
  t.same([noParent.result, noParent.comment], [false, `No directory to create ${dir} in`]);
  const made = await call('directory', dir, { makedirs: true, mode: 750 });
  t.same(made.changes, { [dir]: { directory: 'new' } }, 'made with its mode in one go, as Salt');
  t.equal((await stat(dir)).mode & 0o777, 0o750);
  const testMode = await call('directory', dir, { mode: '0755' }, { test: true });
  t.same(
    [testMode.result, testMode.comment, testMode.changes],
    [null, `The following files will be changed:\n${dir}: mode - 0755\n`, { [dir]: { mode: '0755' } }],
  );
  const upd = await call('directory', dir, { mode: '0755' });
  t.same([upd.comment, upd.changes], [`Directory ${dir} updated`, { [dir]: { mode: '0755' }, mode: '0755' }], "Salt's prediction, then what it set");
  await writeFile(join(dir, 'stray'), '');
  await writeFile(join(dir, 'kept'), '');
  const keep = chunk('file', 'managed', join(dir, 'kept'));
  const unrequired = chunk('file', 'managed', join(dir, 'unrequired'));
  await writeFile(join(dir, 'unrequired'), '');
  const c = chunk('file', 'directory', dir, { clean: true, require: [{ file: join(dir, 'kept') }] });
  const cleaned = await callState(reg, c, ctxFor(c, { lowstate: [keep, unrequired, c] }));
  const gone = [join(dir, 'stray'), join(dir, 'unrequired')];
  t.same(cleaned.comment, `Files cleaned from directory ${dir}`);
  t.same(cleaned.changes, {
    [gone[0]!]: { removed: 'Removed due to clean' },
    [gone[1]!]: { removed: 'Removed due to clean' },
    removed: cleaned.changes.removed,
  });
  t.same([...(cleaned.changes.removed as string[])].sort(), gone, 'only the required state keeps its file');
  t.same(await readdir(dir), ['kept']);
  await writeFile(join(d, 'file'), '');
  const onFile = await call('directory', join(d, 'file'));
  t.same([onFile.result, onFile.comment], [false, `Specified location ${join(d, 'file')} exists and is a file`]);
});

t.test('file.absent', async (t) => {
  const d = await tmp(t);
  await writeFile(join(d, 'f'), 'x');
  await mkdir(join(d, 'sub'));
  const tf = await call('absent', join(d, 'f'), {}, { test: true });
  t.same([tf.result, tf.comment, tf.changes], [null, `File ${join(d, 'f')} is set for removal`, { removed: join(d, 'f') }]);
  t.ok(existsSync(join(d, 'f')));
  const rf = await call('absent', join(d, 'f'));
  t.same([rf.result, rf.comment], [true, `Removed file ${join(d, 'f')}`]);
  const rd = await call('absent', join(d, 'sub'));
  t.same([rd.comment, rd.changes], [`Removed directory ${join(d, 'sub')}`, { removed: join(d, 'sub') }]);
  t.same(await readdir(d), []);
  const root = await call('absent', '/');
  t.equal(root.result, false);
});

t.test('file.append: only missing lines, list text, test mode', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'f');
  await writeFile(f, 'one\ntwo');
  const tm = await call('append', f, { text: ['two', 'three'] }, { test: true });
  t.same([tm.result, tm.comment, tm.changes], [null, `File ${f} is set to be updated`, { diff: '--- \n\n+++ \n\n@@ -1,2 +1,3 @@\n\n one\n two\n+three' }]);
  const r = await call('append', f, { text: ['two', 'three\nfour'] });
  t.equal(r.comment, 'Appended 2 lines');
  t.equal(await readFile(f, 'utf8'), 'one\ntwo\nthree\nfour\n');
  const again = await call('append', f, { text: 'four' });
  t.same([again.result, again.comment, again.changes], [true, `File ${f} is in correct state`, {}]);
});

t.test('file.symlink: create, retarget, force, makedirs', async (t) => {
  const d = await tmp(t);
  const l = join(d, 'x/link');
  const noDir = await call('symlink', l, { target: '/etc/hostname' });
  t.same([noDir.result, noDir.comment], [false, `Directory ${join(d, 'x')} for symlink is not present`]);
  const made = await call('symlink', l, { target: '/etc/hostname', makedirs: true });
  t.same([made.changes, made.comment], [{ new: l }, `Created new symlink ${l} -> /etc/hostname`]);
  const tm = await call('symlink', l, { target: '/etc/hosts' }, { test: true });
  t.same([tm.result, tm.comment], [null, `Link ${l} target is set to be changed to /etc/hosts`]);
  const re = await call('symlink', l, { target: '/etc/hosts' });
  t.same([re.changes, re.comment], [{ change: l }, `Set symlink ${l} -> /etc/hosts`]);
  t.equal(await readlink(l), '/etc/hosts');
  const plain = join(d, 'plain');
  await writeFile(plain, 'x');
  const refused = await call('symlink', plain, { target: '/etc/hosts' });
  t.same([refused.result, refused.comment], [false, `File exists where the symlink ${plain} should be`]);
  const forced = await call('symlink', plain, { target: '/etc/hosts', force: true });
  t.equal(forced.result, true);
  t.same(forced.changes, { forced: 'Symlink was forcibly replaced', new: plain });
  const missing = await call('symlink', l);
  t.same([missing.result, missing.comment], [false, "Missing required argument 'target' for state file.symlink"]);
});

t.test('file.replace: python-style patterns and flags', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'conf');
  await writeFile(f, 'Port 22\nport 2222\nListen 1\n');
  await chmod(f, 0o640);
  const tm = await call('replace', f, { pattern: '^port (\\d+)', repl: 'Port \\1 # was \\g<1>', flags: ['IGNORECASE'] }, { test: true });
  t.same([tm.result, tm.comment], [null, 'Changes would have been made']);
  const r = await call('replace', f, { pattern: '^port (\\d+)', repl: 'Port \\1 # was \\g<1>', flags: ['IGNORECASE', 'MULTILINE'], count: 1 });
  t.same([r.result, r.comment], [true, 'Changes were made']);
  t.equal(await readFile(f, 'utf8'), 'Port 22 # was 22\nport 2222\nListen 1\n');
  t.equal(r.changes.diff, '--- \n+++ \n@@ -1,3 +1,3 @@\n-Port 22\n+Port 22 # was 22\n port 2222\n Listen 1\n');
  t.equal((await stat(f)).mode & 0o777, 0o640, 'mode kept');
  const none = await call('replace', f, { pattern: 'nomatch', repl: 'x' });
  t.same([none.result, none.comment], [true, 'No changes needed to be made']);
  const app = await call('replace', f, { pattern: '^Extra .*', repl: 'Extra yes', append_if_not_found: true });
  t.equal(app.result, true);
  t.match(await readFile(f, 'utf8'), /Listen 1\nExtra yes\n$/);
  const gone = await call('replace', join(d, 'nope'), { pattern: 'a', repl: 'b' });
  t.same([gone.result, gone.comment], [false, `${join(d, 'nope')}: file not found`]);
  await symlink('/etc/hosts', join(d, 'lnk'));
});
