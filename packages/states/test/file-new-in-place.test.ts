import t from 'tap';
import fs, { watch } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callState, defaultRegistry } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

/**
 * A new file is created in place (O_EXCL, as Salt touches it before writing), not through a
 * temp file renamed over: one directory entry made instead of two, and nothing replaced that
 * appeared meanwhile. An existing file is still replaced atomically through a temp file.
 */
const reg = defaultRegistry();
const call = (name: string, extra: Record<string, unknown>) => {
  const c = chunk('file', 'managed', name, extra);
  return callState(reg, c, ctxFor(c));
};

async function tmp(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'brine-new-file-'));
  t.teardown(() => rm(d, { recursive: true, force: true }));
  return d;
}

/** The names seen in `dir` (inotify) until `last` shows up; its events come in order. */
function namesSeen(dir: string, last: string): { done: Promise<string[]>; close(): void } {
  const seen: string[] = [];
  let close = () => {};
  const done = new Promise<string[]>((resolve) => {
    const w = watch(dir, (_event, file) => {
      if (file === null) return;
      seen.push(file);
      if (file === last) {
        w.close();
        resolve(seen);
      }
    });
    close = () => w.close();
  });
  return { done, close };
}

t.test('file.managed: a new file is written in place, no temp file in its directory', async (t) => {
  const d = await tmp(t);
  const watcher = namesSeen(d, 'end');
  t.teardown(watcher.close);
  const results = [];
  for (const n of ['a.txt', 'b.txt']) results.push(await call(join(d, n), { contents: `file ${n}` }));
  await writeFile(join(d, 'end'), '');
  const seen = await watcher.done;
  t.same([...new Set(seen)].sort(), ['a.txt', 'b.txt', 'end'], 'only the files themselves appeared');
  for (const [i, n] of ['a.txt', 'b.txt'].entries()) {
    const r = results[i]!;
    t.same([r.result, r.comment, r.changes], [true, `File ${join(d, n)} updated`, { diff: 'New file' }]);
    t.match(r.new_state, { name: join(d, n), mode: (0o666 & ~process.umask()).toString(8).padStart(4, '0'), size: `file ${n}\n`.length });
    t.equal(await readFile(join(d, n), 'utf8'), `file ${n}\n`);
  }
});

t.test('file.managed: a new file gets its exact mode even where the umask would narrow it', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'wide');
  const r = await call(f, { contents: 'x', mode: '0666' });
  t.same([r.result, r.changes], [true, { diff: 'New file', mode: '0666' }]);
  t.equal((await stat(f)).mode & 0o7777, 0o666);
  t.match(r.new_state, { mode: '0666' });
});

t.test('file.managed: new file failures read as before', async (t) => {
  const d = await tmp(t);
  const noParent = await call(join(d, 'missing', 'f'), { contents: 'x' });
  t.same([noParent.result, noParent.comment, noParent.changes], [false, 'Parent directory not present', {}]);
  // a dangling symlink as the parent: the parent "is there", the write itself fails
  await symlink(join(d, 'nowhere'), join(d, 'dangling'));
  const dangling = await call(join(d, 'dangling', 'f'), { contents: 'x' });
  t.equal(dangling.result, false);
  t.match(dangling.comment, /ENOENT/);
  t.same((await readdir(d)).sort(), ['dangling'], 'nothing left behind');
});

t.test('file.managed: an existing file is still replaced through a temp file', async (t) => {
  const d = await tmp(t);
  const f = join(d, 'conf');
  await writeFile(f, 'old\n');
  const watcher = namesSeen(d, 'end');
  t.teardown(watcher.close);
  const r = await call(f, { contents: 'new' });
  await writeFile(join(d, 'end'), '');
  const seen = await watcher.done;
  t.ok(
    seen.some((n) => n.startsWith('.conf.brine-')),
    'a temp file renamed over it',
  );
  t.same(r.changes, { diff: '--- \n+++ \n@@ -1 +1 @@\n-old\n+new\n' });
  t.equal(await readFile(f, 'utf8'), 'new\n');
});

/** The paths `lstatSync` is asked about while `fn` runs (the real call, counted). */
async function lstatsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const real = fs.lstatSync;
  const asked: string[] = [];
  fs.lstatSync = ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
    asked.push(String(p));
    return real(p, o);
  }) as typeof fs.lstatSync;
  syncBuiltinESMExports();
  try {
    await fn();
  } finally {
    fs.lstatSync = real;
    syncBuiltinESMExports();
  }
  return asked;
}

t.test('file.managed: a new file is created without looking first (O_EXCL says it was not there)', async (t) => {
  const d = await tmp(t);
  const results: Awaited<ReturnType<typeof call>>[] = [];
  const asked = await lstatsDuring(async () => {
    for (const n of ['a', 'b']) results.push(await call(join(d, n), { contents: n }));
  });
  t.same(asked, [], 'no lstat of the new files or their directory');
  // a mode set after the write (Salt's order) is read back once, after it
  const withMode = await lstatsDuring(async () => results.push(await call(join(d, 'c'), { contents: 'c', mode: '0640' })));
  t.same(withMode, [join(d, 'c')]);
  for (const [i, n] of ['a', 'b', 'c'].entries()) {
    t.same(
      [results[i]!.result, results[i]!.changes, results[i]!.old_state],
      [true, n === 'c' ? { diff: 'New file', mode: '0640' } : { diff: 'New file' }, null],
    );
    t.equal(await readFile(join(d, n), 'utf8'), `${n}\n`);
  }
  // what is there already, or a missing parent, is still looked at first
  const again = await lstatsDuring(() => call(join(d, 'a'), { contents: 'a' }));
  t.same(again, [join(d, 'a')]);
  const made = await call(join(d, 'sub', 'deep', 'f'), { contents: 'x', makedirs: true });
  t.same([made.result, made.changes], [true, { diff: 'New file' }]);
  t.same(await call(join(d, 'dir-a'), { contents: 'x', create: false }), {
    name: join(d, 'dir-a'),
    changes: {},
    result: true,
    comment: `File ${join(d, 'dir-a')} is not present and is not set for creation`,
  });
});

t.test('file.managed: test mode still looks, and creates nothing', async (t) => {
  const d = await tmp(t);
  const c = chunk('file', 'managed', join(d, 'n'), { contents: 'x' });
  const dry = await callState(reg, c, ctxFor(c, { test: true }));
  t.same([dry.result, dry.changes], [null, { newfile: join(d, 'n') }]);
  t.same(await readdir(d), [], 'test mode made nothing');
});
