import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';

/**
 * The functions operators type every day, on one real minion through one real master (issue 25,
 * item 5): cp.* through the master's file server, persisted grains seen by the next compile,
 * saltutil.kill_job stopping a test.sleep 60 started by another `brine run`, state.sls_id.
 * Return shapes are Salt 3007.10's (recorded with salt-call --local).
 */

const tree = mkdtempSync(path.join(os.tmpdir(), 'brine-everyday-'));
const out = path.join(tree, 'out');
mkdirSync(path.join(tree, 'files/sub'), { recursive: true });
writeFileSync(path.join(tree, 'files/motd.txt'), 'hello\n');
writeFileSync(path.join(tree, 'files/sub/app.conf'), 'port: 80\n');
writeFileSync(path.join(tree, 'top.sls'), "base:\n  'role:web':\n    - match: grain\n    - web\n");
writeFileSync(path.join(tree, 'web.sls'), 'webserver:\n  test.succeed_without_changes\n');
writeFileSync(
  path.join(tree, 'ids.sls'),
  'one:\n  test.succeed_without_changes\ntwo:\n  test.succeed_with_changes:\n    - require:\n      - test: one\nthree:\n  test.fail_without_changes\n',
);

const cluster = new Cluster({ minions: ['m1'], master: { file_roots: { base: [tree] } } });
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(tree, { recursive: true, force: true });
});

const ret = async (fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}) => (await cluster.run('m1', fun, arg, { kwarg })).returns.m1!;

t.test('cp.list_master, cp.get_file_str, cp.get_file and cp.cache_file through the master', async (t) => {
  t.same((await ret('cp.list_master')).return, ['files/motd.txt', 'files/sub/app.conf', 'ids.sls', 'top.sls', 'web.sls']);
  t.same((await ret('cp.list_master_dirs')).return, ['files', 'files/sub']);
  t.same((await ret('cp.list_master', [], { prefix: 'files/sub' })).return, ['files/sub/app.conf']);
  t.equal((await ret('cp.get_file_str', ['salt://files/motd.txt'])).return, 'hello\n');
  t.equal((await ret('cp.get_file_str', ['salt://files/nope'])).return, false);
  const dest = path.join(out, 'etc/motd');
  t.equal((await ret('cp.get_file', ['salt://files/motd.txt', dest], { makedirs: true })).return, dest);
  t.equal(readFileSync(dest, 'utf8'), 'hello\n');
  t.equal((await ret('cp.get_file', ['salt://files/motd.txt', path.join(out, 'no/such/dir/motd')])).return, false, 'no makedirs: false');
  t.equal((await ret('cp.get_file', ['salt://files/nope', path.join(out, 'nope')])).return, '');
  t.same((await ret('cp.get_dir', ['salt://files/sub', path.join(out, 'd')])).return, [path.join(out, 'd/sub/app.conf')]);
  const cached = (await ret('cp.cache_file', ['salt://files/sub/app.conf'])).return as string;
  t.equal(cached, path.join(cluster.dir, 'minion-m1', 'files', 'base', 'files/sub/app.conf'));
  t.equal(readFileSync(cached, 'utf8'), 'port: 80\n');
});

t.test('grains.setval persists, is seen by grains.item and by the next compile', async (t) => {
  t.same((await ret('state.show_top')).return, {}, 'no role grain yet');
  t.same((await ret('grains.setval', ['role', 'web'])).return, { role: 'web' });
  t.same((await ret('grains.item', ['role'])).return, { role: 'web' });
  t.same((await ret('state.show_top')).return, { base: ['web'] }, 'the compile targets the new grain');
  const file = path.join(cluster.dir, 'minion-m1', 'grains');
  t.ok(existsSync(file), 'written to the grains file in the data dir');
  t.match(readFileSync(file, 'utf8'), /role: web/);
  t.same((await ret('grains.append', ['roles', 'db'])).return, { roles: ['db'] });
  t.equal((await ret('grains.append', ['roles', 'db'])).return, 'The val db was already in the list roles');
  t.same((await ret('grains.delkey', ['roles'])).return, { comment: '', changes: { roles: null }, result: true });
  t.same((await ret('grains.item', ['roles'])).return, { roles: '' });
});

t.test('saltutil.kill_job stops a test.sleep 60 started by another brine run', async (t) => {
  const m1 = cluster.minions.get('m1')!;
  const since = m1.lines.length;
  const sleeping = cluster.brine(['run', 'm1', 'test.sleep', '60', '--out', 'json']);
  const started = await m1.waitFor((l) => l.event === 'job_started' && l.fun === 'test.sleep', 'test.sleep started', 15_000, since);
  const jid = String(started.jid);
  t.match((await ret('saltutil.find_job', [jid])).return, { jid, fun: 'test.sleep', arg: [60] });
  t.match((await ret('saltutil.running')).return, [{ jid, fun: 'test.sleep' }]);
  const kill = await ret('saltutil.kill_job', [jid]);
  t.match(kill.return, new RegExp(`^Signal 9 sent to job ${jid} at pid \\d+$`));
  const r = await sleeping;
  t.equal(r.code, 1, 'the killed run fails');
  t.match(r.stdout, /was killed/);
  t.same((await ret('saltutil.find_job', [jid])).return, {}, 'no longer running');
  t.equal((await ret('saltutil.kill_job', [jid])).return, '', 'nothing to kill: an empty string, as Salt');
});

t.test('state.sls_id runs one id (and what it requires); saltutil.sync_all and refreshes', async (t) => {
  const r = await ret('state.sls_id', ['two', 'ids']);
  t.equal(r.retcode, 0);
  t.same(Object.keys(r.return as object).sort(), ['test_|-one_|-one_|-succeed_without_changes', 'test_|-two_|-two_|-succeed_with_changes']);
  const none = await ret('state.sls_id', ['nope', 'ids']);
  t.equal(none.retcode, 1);
  t.equal(none.return, "ERROR executing 'state.sls_id': No matches for ID 'nope' found in SLS 'ids' within saltenv 'base'");
  t.equal((await ret('state.id_exists', ['one,two', 'ids'])).return, true);
  t.match((await ret('state.single', ['test.succeed_without_changes'], { name: 'solo' })).return, {
    'test_|-solo_|-solo_|-succeed_without_changes': { result: true, comment: 'Success!' },
  });
  const dry = (await ret('state.test', ['ids'])).return as Record<string, { result: unknown }>;
  t.equal(dry['test_|-two_|-two_|-succeed_with_changes']!.result, null, 'state.test: would change');
  const all = (await ret('saltutil.sync_all')).return as Record<string, unknown>;
  t.same(all.states, []);
  t.same(all.modules, []);
  t.equal((await ret('saltutil.refresh_pillar')).return, true);
  t.equal((await ret('saltutil.refresh_grains')).return, true);
  t.same((await ret('grains.item', ['role'])).return, { role: 'web' }, 'persisted grains survive a refresh');
});
