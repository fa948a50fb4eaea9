import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { dirFileClient } from '@brine/states';
import { execContext, execRegistry, readGrainsFile, runExec } from '../src/index.js';

/**
 * cp.* over a real file root (brine local's client) and grains.setval & co over a real grains
 * file, with Salt 3007.10's return shapes (recorded with salt-call --local).
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-cp-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const root = path.join(dir, 'root');
mkdirSync(path.join(root, 'sub'), { recursive: true });
writeFileSync(path.join(root, 'a.txt'), 'hello\n');
writeFileSync(path.join(root, 'sub/b.txt'), 'b\n');

const registry = execRegistry();
const grainsFile = path.join(dir, 'grains');
let changed = 0;
const ctx = execContext({ registry, grains: { id: 'm1', os: 'Debian' } });
Object.assign(ctx, {
  files: dirFileClient({ base: [root] }),
  cacheDir: path.join(dir, 'cache'),
  grainsFile,
  grainsChanged: async () => void changed++,
});
const call = async (fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}) => (await runExec(registry, fun, args, kwargs, ctx)).return;

t.test('cp.* as salt-call --local answers', async (t) => {
  t.same(await call('cp.list_master'), ['a.txt', 'sub/b.txt']);
  t.same(await call('cp.list_master_dirs'), ['sub']);
  t.equal(await call('cp.get_file_str', ['salt://a.txt']), 'hello\n');
  t.equal(await call('cp.get_file_str', ['salt://nope']), false);
  const dest = path.join(dir, 'x/a.txt');
  t.equal(await call('cp.get_file', ['salt://a.txt', dest]), false, "dest's folder missing without makedirs");
  t.equal(await call('cp.get_file', ['salt://a.txt', dest], { makedirs: true }), dest);
  t.equal(readFileSync(dest, 'utf8'), 'hello\n');
  t.equal(await call('cp.get_file', ['salt://a.txt', path.join(dir, 'x/')]), dest, 'into a folder: the source name');
  t.equal(await call('cp.get_file', ['salt://nope', dest]), '');
  t.same(await call('cp.get_dir', ['salt://sub', path.join(dir, 'd')]), [path.join(dir, 'd/sub/b.txt')]);
  t.equal(await call('cp.cache_file', ['salt://sub/b.txt']), path.join(dir, 'cache/files/base/sub/b.txt'));
  t.equal(await call('cp.cache_file', ['salt://nope']), false);
  t.same(await call('cp.hash_file', ['salt://a.txt']), { hash_type: 'sha256', hsum: '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03' });
  await t.rejects(call('cp.get_file', ['salt://a.txt', dest], { template: 'jinja' }), { code: 'BRINE_ERR_EXEC_CP_TEMPLATE' });
  const bare = execContext({ registry, grains: {} });
  await t.rejects(runExec(registry, 'cp.list_master', [], {}, bare), { code: 'BRINE_ERR_EXEC_NO_FILE_SERVER' });
});

t.test('grains.setval & co persist in the grains file and the live grains', async (t) => {
  t.same(await call('grains.setval', ['role', 'web']), { role: 'web' });
  t.same(await call('grains.setvals', [{ x: 1, y: 'two' }]), { x: 1, y: 'two' });
  t.same(await call('grains.append', ['roles', 'a']), { roles: ['a'] });
  t.same(await call('grains.append', ['roles', 'b']), { roles: ['a', 'b'] });
  t.equal(await call('grains.append', ['roles', 'b']), 'The val b was already in the list roles');
  t.equal(await call('grains.append', ['x', 'z']), 'The key x is not a valid list');
  t.same(await call('grains.append', ['x', 'z'], { convert: true }), { x: [1, 'z'] });
  t.same(await call('grains.delval', ['y']), { comment: '', changes: { y: null }, result: true });
  t.same(await call('grains.delkey', ['x']), { comment: '', changes: { x: null }, result: true });
  t.same(readGrainsFile(grainsFile), { role: 'web', roles: ['a', 'b'], y: null }, 'delval keeps the key as None, delkey removes it');
  t.same(ctx.grains, { id: 'm1', os: 'Debian', role: 'web', roles: ['a', 'b'], y: null });
  t.equal(changed, 7, 'the minion is told after each change');
  writeFileSync(grainsFile, '- a list\n');
  await t.rejects(call('grains.setval', ['k', 'v']), { code: 'BRINE_ERR_EXEC_GRAINS_FILE', message: new RegExp(`${grainsFile} must hold a dictionary`) });
  const bare = execContext({ registry, grains: {} });
  await t.rejects(runExec(registry, 'grains.setval', ['k', 'v'], {}, bare), { code: 'BRINE_ERR_EXEC_NO_GRAINS_FILE' });
});
