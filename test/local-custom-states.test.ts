import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { writeTree } from './helpers/fleet-tree.js';
import { brine, REPO } from './support/brine-cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-local-custom-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('brine local loads _states/ from the file roots and lists state functions', async (t) => {
  writeTree(dir, { 'rel.sls': `r:\n  release.recorded:\n    - name: ${dir}/out/release.json\n    - version: 3\n` });
  const roots = ['--file-root', dir, '--file-root', path.join(REPO, 'examples/fleet/states'), '--id', 'm1'];
  const run = await brine(['local', 'state.sls', 'rel', ...roots, '--out', 'json']);
  t.equal(run.code, 0, run.stderr);
  const s = Object.values(JSON.parse(run.stdout).local as Record<string, { result: boolean; comment: string }>)[0]!;
  t.same([s.result, s.comment], [true, 'Recorded release 3 of app']);
  t.same(JSON.parse(readFileSync(path.join(dir, 'out/release.json'), 'utf8')), { app: 'app', version: '3' });

  const list = await brine(['local', 'sys.list_state_functions', 'release', ...roots, '--out', 'json']);
  t.same(JSON.parse(list.stdout), { local: ['release.recorded'] });
  const all = await brine(['local', 'sys.list_state_functions', '--out', 'json', '--file-root', dir]);
  const fns = JSON.parse(all.stdout).local as string[];
  t.ok(fns.includes('file.managed') && fns.includes('cmd.run') && !fns.includes('release.recorded'));
  const mods = await brine(['local', 'sys.list_state_modules', 'f*', '--out', 'json', '--file-root', dir]);
  t.same(JSON.parse(mods.stdout), { local: ['file'] });
});
