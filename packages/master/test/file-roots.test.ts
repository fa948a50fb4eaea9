import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { FileRoots } from '../src/file-roots.js';

function tree(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-roots-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

t.test('the async walk sees what the blocking walk sees: same listing, hashes and tree hash', async (t) => {
  const dir = tree(t, { 'top.sls': 'base: {}\n', 'b/x.sls': 'x: 1\n', 'a/y.txt': 'y\n', '.keep': '', '.git/config': 'no\n' });
  symlinkSync(path.join(dir, 'a/y.txt'), path.join(dir, 'a/link.txt'));
  symlinkSync('/etc/hostname', path.join(dir, 'a/out.txt'));
  const escapes: string[] = [];
  const roots = new FileRoots({ base: [dir] }, [], (_env, file) => void escapes.push(file));
  const sync = roots.snapshot();
  const fresh = await roots.fresh();
  t.equal(fresh.hash, sync.hash);
  // dot files are served as Salt serves them; a VCS folder is not
  t.same(fresh.tree.list('base'), ['.keep', 'a/link.txt', 'a/y.txt', 'b/x.sls', 'top.sls']);
  t.same(fresh.tree.list('base'), sync.tree.list('base'));
  t.equal(fresh.tree.read('base', 'a/link.txt'), 'y\n');
  t.same(escapes, ['a/out.txt', 'a/out.txt'], 'a symlink out of the root is left out by both');
});

t.test('requests share the walk in flight; one tree state is one snapshot', async (t) => {
  const dir = tree(t, { 'a.txt': 'a\n' });
  const roots = new FileRoots({ base: [dir] });
  const [a, b, c] = [roots.current(), roots.current(), roots.current()];
  t.equal(a, b, 'a request during a walk waits on it');
  t.equal(b, c);
  const first = await a;
  t.equal(await roots.current(), first, 'an unchanged tree walked again is the same snapshot');
  // fresh(): a walk that starts after the call; callers during one walk share the next
  const during = roots.current();
  const [f1, f2] = [roots.fresh(), roots.fresh()];
  t.equal(f1, f2);
  t.not(f1, during);
  writeFileSync(path.join(dir, 'a.txt'), 'changed!\n');
  await during;
  t.equal((await f1).tree.read('base', 'a.txt'), 'changed!\n', 'the queued walk sees a change made while the first one ran');
});

t.test("a job's snapshot keeps the tree and the bytes it was first used with", async (t) => {
  const dir = tree(t, { 'a.txt': 'one\n' });
  const roots = new FileRoots({ base: [dir] });
  const jid = '20250101000000000001';
  const job = await roots.forJob(jid);
  writeFileSync(path.join(dir, 'a.txt'), 'two, longer\n');
  t.equal(await roots.forJob(jid), job);
  t.equal(job.read('base', 'a.txt')?.toString(), 'one\n', 'not the bytes on disk now');
  t.equal((await roots.fresh()).read('base', 'a.txt')?.toString(), 'two, longer\n');
  t.equal(roots.snapshot(jid), job, 'the blocking walk of a worker reuses it too');
});
