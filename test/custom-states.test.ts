import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import { REPO } from './support/brine-cli.js';

// The master serves a scratch tree first, then the example fleet's tree (the first root holding
// a path wins): release.sls and _states/release.mjs come from examples/fleet/states.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'brine-custom-'));
const tree = path.join(scratch, 'states');
const out = path.join(scratch, 'out');
writeTree(tree, {
  'stamp.sls': `stamped:\n  stamp.mark:\n    - name: ${out}/stamp\n`,
  '_states/stamp.mjs': stampModule('v1'),
  'typo.sls': 'oops:\n  nosuchmodule.run:\n    - name: x\n',
});
const cluster = new Cluster({
  minions: ['web1'],
  master: {
    file_roots: { base: [tree, path.join(REPO, 'examples/fleet/states')] },
    pillar_roots: { base: [path.join(REPO, 'examples/fleet/pillar')] },
    timeout: 30,
  },
});
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(scratch, { recursive: true, force: true });
});

function stampModule(version: string): string {
  return `import { writeFileSync } from 'node:fs';
export default { functions: { mark: async (a, ctx) => {
  if (!ctx.test) writeFileSync(a.name, '${version}');
  return { name: a.name, result: ctx.test ? null : true, changes: { stamp: '${version}' }, comment: 'stamped ${version}' };
} } };
`;
}

type Running = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>;
const only = (r: unknown) => Object.values(r as Running)[0]!;

t.test("the example tree's custom module (_states/release.mjs) runs on a real minion", async (t) => {
  const pillar = { root: out, release: '2.1' };
  const r = await cluster.run('web1', 'state.sls', ['release'], { kwarg: { pillar }, timeout: 30 });
  const web1 = r.returns.web1!;
  t.equal(web1.retcode, 0, JSON.stringify(web1.return));
  const s = only(web1.return);
  t.same([s.result, s.comment, s.changes], [true, 'Recorded release 2.1 of shop', { old: null, new: '2.1' }]);
  t.same(JSON.parse(readFileSync(path.join(out, 'web1/release.json'), 'utf8')), { app: 'shop', version: '2.1' });
  const again = await cluster.run('web1', 'state.sls', ['release'], { kwarg: { pillar }, timeout: 30 });
  t.same(only(again.returns.web1!.return).changes, {}, 'the second run changes nothing');
});

t.test('a changed module is synced again (hash checked), a removed one is gone', async (t) => {
  const first = await cluster.run('web1', 'state.sls', ['stamp'], { timeout: 30 });
  t.equal(only(first.returns.web1!.return).comment, 'stamped v1');
  const none = await cluster.run('web1', 'saltutil.sync_states', [], { timeout: 30 });
  t.same(none.returns.web1!.return, [], 'nothing changed since the run synced');
  writeTree(tree, { '_states/stamp.mjs': stampModule('v2') });
  const synced = await cluster.run('web1', 'saltutil.sync_states', [], { timeout: 30 });
  t.same(synced.returns.web1!.return, ['states.stamp']);
  const second = await cluster.run('web1', 'state.sls', ['stamp'], { timeout: 30 });
  t.equal(only(second.returns.web1!.return).comment, 'stamped v2', 'the new code runs');
  t.equal(readFileSync(path.join(out, 'stamp'), 'utf8'), 'v2');
  rmSync(path.join(tree, '_states/stamp.mjs'));
  const gone = await cluster.run('web1', 'state.sls', ['stamp'], { timeout: 30 });
  const s = only(gone.returns.web1!.return);
  t.equal(s.result, false);
  t.match(s.comment, /State 'stamp.mark' was not found/);
});

t.test('brine validate --minion warns about a state module nobody has', async (t) => {
  const r = await cluster.brine(['validate', 'typo', '--minion', 'web1']);
  t.match(r.stderr, /nosuchmodule/);
  t.match(r.stderr, /state module/);
});
