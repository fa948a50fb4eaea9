import t from 'tap';
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { userInfo, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindStateArgs, type StateReturn } from '@brine/core';
import { defaultRegistry } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

/**
 * A new file from `contents` (the commonest change of a large apply), a file that has its
 * contents already (an apply run again), and both in test mode, are answered without a promise:
 * the runtime then runs such states back to back, with no promise or microtask per state. The
 * result is the awaited way's, key order included; what needs more (an owner to look up, a
 * change to an existing file, a symlink) still takes the awaited way.
 */
const reg = defaultRegistry();
const managed = reg.lookup('file', 'managed')!.fn;

function run(name: string, extra: Record<string, unknown>, test = false): StateReturn | Promise<StateReturn> {
  const c = chunk('file', 'managed', name, extra);
  const bound = bindStateArgs('file.managed', managed, c);
  if ('error' in bound) throw new Error(bound.error);
  return managed.run(bound.args, ctxFor(c, { test }));
}

async function tmp(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'brine-at-once-'));
  t.teardown(() => rm(d, { recursive: true, force: true }));
  return d;
}

/** The result as the runtime records it: its keys in order, then its values. */
const shape = (r: StateReturn) => JSON.stringify([Object.keys(r), r]);

const CASES: Array<[string, Record<string, unknown>]> = [
  ['plain', { contents: 'state 0.1' }],
  ['mode', { contents: 'x', mode: '0640' }],
  ['a mode the umask narrows', { contents: 'x', mode: '0666' }],
  ['a list', { contents: ['a', 'b'] }],
  ['no newline added', { contents: 'x', contents_newline: false }],
  ['empty', { contents: '' }],
  ['a number', { contents: 42 }],
];

for (const [what, extra] of CASES) {
  t.test(`file.managed, a new file from contents (${what}): no promise, the awaited way's result`, async (t) => {
    const d = await tmp(t);
    const r = run(join(d, 'a'), extra);
    t.notOk(r instanceof Promise, 'returned without a promise');
    // an owner to look up takes the awaited way; the owner is this process's, so nothing changes
    const slow = run(join(d, 'b'), { ...extra, user: userInfo().username });
    t.ok(slow instanceof Promise, 'the awaited way for an owner');
    const a = await r;
    const b = await slow;
    t.equal(shape(a).replaceAll(join(d, 'a'), 'P'), shape(b).replaceAll(join(d, 'b'), 'P'), 'the same result, keys in the same order');
    t.same([a.result, a.changes.diff, a.old_state], [true, 'New file', null]);
    t.equal(await readFile(join(d, 'a'), 'utf8'), await readFile(join(d, 'b'), 'utf8'));
    t.equal((await stat(join(d, 'a'))).mode, (await stat(join(d, 'b'))).mode);
  });
}

for (const [what, extra] of CASES) {
  t.test(`file.managed, a file that has its contents already (${what}): no promise, the awaited way's result`, async (t) => {
    const d = await tmp(t);
    for (const n of ['a', 'b']) await run(join(d, n), extra);
    const r = run(join(d, 'a'), extra);
    t.notOk(r instanceof Promise, 'returned without a promise');
    const slow = run(join(d, 'b'), { ...extra, user: userInfo().username });
    t.ok(slow instanceof Promise, 'the awaited way for an owner');
    const a = await r;
    const b = await slow;
    t.equal(shape(a).replaceAll(join(d, 'a'), 'P'), shape(b).replaceAll(join(d, 'b'), 'P'), 'the same result, keys in the same order');
    t.same([a.result, a.changes, a.comment], [true, {}, `File ${join(d, 'a')} is in the correct state`]);
  });
}

for (const [what, extra] of CASES) {
  t.test(`file.managed in test mode, a missing file and one in place (${what}): no promise, the awaited way's result`, async (t) => {
    const d = await tmp(t);
    for (const [n, made] of [
      ['new', false],
      ['there', true],
    ] as const) {
      if (made) for (const x of ['a', 'b']) await run(join(d, `${n}-${x}`), extra);
      const r = run(join(d, `${n}-a`), extra, true);
      t.notOk(r instanceof Promise, `${n}: returned without a promise`);
      const slow = run(join(d, `${n}-b`), { ...extra, user: userInfo().username }, true);
      t.ok(slow instanceof Promise, `${n}: the awaited way for an owner`);
      const a = await r;
      const b = await slow;
      t.equal(shape(a).replaceAll(join(d, `${n}-a`), 'P'), shape(b).replaceAll(join(d, `${n}-b`), 'P'), `${n}: the same result, keys in the same order`);
      t.equal(a.result, made ? true : null);
    }
  });
}

t.test('file.managed: what is not a new file from contents is awaited, with its result as before', async (t) => {
  const d = await tmp(t);
  await writeFile(join(d, 'old'), 'old\n');
  const changed = await run(join(d, 'old'), { contents: 'new' });
  t.same([changed.result, changed.comment], [true, `File ${join(d, 'old')} updated`]);
  t.match(changed.changes.diff, /-old\n\+new/);
  const same = await run(join(d, 'old'), { contents: 'new' });
  t.same([same.result, same.changes, same.comment], [true, {}, `File ${join(d, 'old')} is in the correct state`]);
  const modeChanged = await run(join(d, 'old'), { contents: 'new', mode: '0600' });
  t.same([modeChanged.result, modeChanged.changes], [true, { mode: '0600' }]);
  await symlink(join(d, 'old'), join(d, 'link'));
  const linked = await run(join(d, 'link'), { contents: 'new' });
  t.same([linked.result, linked.changes, linked.comment], [true, {}, `File ${join(d, 'link')} is in the correct state`]);
  t.equal((linked.old_state as { name: string }).name, join(d, 'link'));
  const missing = await run(join(d, 'no', 'such'), { contents: 'x' });
  t.same([missing.result, missing.comment], [false, 'Parent directory not present']);
  const dry = await run(join(d, 'dry'), { contents: 'x' }, true);
  t.same([dry.result, dry.changes], [null, { newfile: join(d, 'dry') }]);
  const dryChange = await run(join(d, 'old'), { contents: 'other' }, true);
  t.same([dryChange.result, dryChange.comment.split('\n')[0]], [null, `The file ${join(d, 'old')} is set to be changed`]);
  t.match(dryChange.changes.diff, /-new\n\+other/);
  const relative = await run('rel/path', { contents: 'x' });
  t.same([relative.result, relative.comment], [false, 'Specified file rel/path is not an absolute path']);
});
