import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';

/**
 * file.recurse on a real minion: the folder listing and every file come from the master's file
 * server (file.list, file.get), templates render on the minion with its grains.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-recurse-'));
const states = path.join(dir, 'states');
const out = path.join(dir, 'out');
mkdirSync(path.join(states, 'conf', 'sub'), { recursive: true });
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - recurse\n");
writeFileSync(path.join(states, 'conf', 'a.txt'), 'alpha\n');
writeFileSync(path.join(states, 'conf', 'skip.log'), 'log\n');
writeFileSync(path.join(states, 'conf', 'sub', 'b.conf'), 'id={{ grains["id"] }}\n');
writeFileSync(
  path.join(states, 'recurse.sls'),
  `conf:\n  file.recurse:\n    - name: ${out}/{{ grains['id'] }}\n    - source: salt://conf\n    - template: jinja\n    - exclude_pat: '*.log'\n    - file_mode: '0640'\n`,
);

const cluster = new Cluster({ minions: ['r1'], master: { file_roots: { base: [states] }, timeout: 30 } });
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

type Running = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>;

t.test('file.recurse through the master file server, then in the correct state', async (t) => {
  const r = await cluster.run('r1', 'state.apply', [], { timeout: 30 });
  t.equal(r.returns.r1!.retcode, 0, JSON.stringify(r.returns.r1!.return));
  const [first] = Object.values(r.returns.r1!.return as Running);
  const root = path.join(out, 'r1');
  t.same(Object.keys(first!.changes).sort(), [path.join(root, 'a.txt'), path.join(root, 'sub'), path.join(root, 'sub/b.conf')]);
  t.equal(readFileSync(path.join(root, 'sub/b.conf'), 'utf8'), 'id=r1\n');
  t.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'alpha\n');
  t.equal(statSync(path.join(root, 'a.txt')).mode & 0o777, 0o640);
  t.throws(() => statSync(path.join(root, 'skip.log')), 'excluded file not copied');
  const again = await cluster.run('r1', 'state.apply', [], { timeout: 30 });
  const [second] = Object.values(again.returns.r1!.return as Running);
  t.equal(second!.comment, `The directory ${root} is in the correct state`);
  t.same(second!.changes, {});
});
