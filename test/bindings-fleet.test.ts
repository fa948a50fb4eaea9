import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

// A master with classic pillar and structured bindings (site over modules), two minions that
// differ in os_family; the motd a state writes comes from the pillar the bindings make.
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-bindings-fleet-'));
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
const site = path.join(dir, 'site');
const modules = path.join(dir, 'modules');
const out = path.join(dir, 'out');

writeTree(states, {
  'top.sls': "base:\n  '*':\n    - motd\n",
  'motd.sls': `motd:
  file.managed:
    - name: ${out}/{{ grains['id'] }}/motd
    - makedirs: True
    - contents: "{{ pillar['motd']['greeting'] }} via {{ salt['pillar.get']('motd:pkg') }} ({{ pillar['motd']['owner'] }}){{ params.get('suffix', '') }}"
`,
  'strict.sls': `strict:
  test.succeed_without_changes:
    - name: "{{ params['needed'] }}"
`,
});
writeTree(pillar, {
  'top.sls': "base:\n  '*':\n    - common\n",
  'common.sls': 'motd:\n  greeting: from classic pillar\n  owner: ops\n',
});
writeTree(modules, {
  'motd/bindings/default.yaml': `bindings_version: 1
name: 'motd::default'
bind:
  - ['motd.greeting', 'hello']
  - ['motd.pkg', 'apt']
  - when: {osfamily: RedHat}
    bind:
      - ['motd.pkg', 'yum']
`,
});
writeTree(site, {
  'bindings/default.yaml': `bindings_version: 1
name: 'default'
bind:
  - when: {node: web2}
    bind:
      - ['motd.greeting', 'hi web2']
`,
});

const cluster = new Cluster({
  minions: ['web1', 'web2'],
  minionConfig: (id) => ({ grains: { os_family: id === 'web2' ? 'RedHat' : 'Debian' } }),
  master: {
    file_roots: { base: [states] },
    pillar_roots: { base: [pillar] },
    bindings_roots: { site: [site], modules: [modules] },
    timeout: 30,
  },
});
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

const motd = (id: string) => readFileSync(path.join(out, id, 'motd'), 'utf8');

t.test('state.apply: each minion gets the file its bindings say', async (t) => {
  const r = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  for (const [m, ret] of Object.entries(r.returns)) t.equal(ret.retcode, 0, `${m}: ${JSON.stringify(ret.return)}`);
  t.equal(motd('web1'), 'hello via apt (ops)\n', 'module default over classic pillar; classic keys kept');
  t.equal(motd('web2'), 'hi web2 via yum (ops)\n', 'site node binding and the RedHat block');
});

t.test('pillar.items, pillar.get and pillar targeting see the merged pillar', async (t) => {
  const items = await cluster.run('*', 'pillar.items');
  t.same(items.returns.web1!.return, { motd: { greeting: 'hello', owner: 'ops', pkg: 'apt' } });
  t.same(items.returns.web2!.return, { motd: { greeting: 'hi web2', owner: 'ops', pkg: 'yum' } });
  const get = await cluster.run('web2', 'pillar.get', ['motd:greeting']);
  t.equal(get.returns.web2!.return, 'hi web2');
  const byPillar = await cluster.run('motd:pkg:yum', 'test.ping', [], { tgt_type: 'pillar' });
  t.same(Object.keys(byPillar.returns), ['web2'], '-I motd:pkg:yum');
  const compound = await cluster.run('I@motd:greeting:hello and web*', 'test.ping', [], { tgt_type: 'compound' });
  t.same(Object.keys(compound.returns), ['web1'], 'I@ in a compound');
  const cli = await cluster.brine(['pillar', 'items', 'web1', '--out', 'json']);
  t.equal(cli.code, 0, cli.stderr);
  t.same(JSON.parse(cli.stdout), { web1: { motd: { greeting: 'hello', owner: 'ops', pkg: 'apt' } } });
});

t.test('brine pillar explain names the winning binding and what it shadowed', async (t) => {
  const text = await cluster.brine(['pillar', 'explain', 'web2', 'motd.greeting']);
  t.equal(text.code, 0, text.stderr);
  t.equal(
    text.stdout,
    'motd.greeting: "hi web2"\n' +
      '    bound by: bindings/default.yaml:6 [site] default, when node=web2\n' +
      '    shadows:\n' +
      '      motd/bindings/default.yaml:4 [modules] motd::default, unconditional\n',
  );
  const json = await cluster.brine(['pillar', 'explain', 'web1', 'motd', '--out', 'json']);
  t.equal(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout) as {
    explain: Record<string, { value: unknown; winner: { file: string; layer: string; categories: Record<string, string> } }>;
  };
  t.same(Object.keys(r.explain).sort(), ['motd.greeting', 'motd.pkg'], 'a prefix explains the names under it');
  t.match(r.explain['motd.pkg'], { value: 'apt', winner: { file: 'motd/bindings/default.yaml', layer: 'modules', categories: {} } });
  const classic = await cluster.brine(['pillar', 'explain', 'web1', 'motd.owner']);
  t.equal(classic.code, 0, 'a name no binding binds: the pillar source it came from');
  t.equal(classic.stdout, 'motd.owner: "ops"\n    from: pillar_roots\n');
  const none = await cluster.brine(['pillar', 'explain', 'web1', 'motd.nothing']);
  t.equal(none.code, 1, 'a name in no source');
  t.equal(none.stdout, 'motd.nothing: not bound for this minion\n');
  const unknown = await cluster.brine(['pillar', 'explain', 'nosuch', 'motd']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /BRINE_ERR_MASTER_NOT_FOUND/);
});

t.test('params: --params files and params= change a value; a missing params[key] fails naming it', async (t) => {
  const file = path.join(dir, 'params.yaml');
  writeTree(dir, { 'params.yaml': 'suffix: " [from file]"\n' });
  const a = await cluster.brine(['run', 'web1', 'state.apply', '--params', file, '--out', 'json']);
  t.equal(a.code, 0, a.stderr);
  t.equal(motd('web1'), 'hello via apt (ops) [from file]\n');
  const b = await cluster.brine(['run', 'web1', 'state.apply', '--params', file, 'params={"suffix": " [inline]"}', '--out', 'json']);
  t.equal(b.code, 0, b.stderr);
  t.equal(motd('web1'), 'hello via apt (ops) [inline]\n', 'params= overrides the files');
  t.equal(motd('web2'), 'hi web2 via yum (ops)\n', 'the other minion is untouched');
  const strict = await cluster.run('web1', 'state.sls', ['strict'], { timeout: 30 });
  t.equal(strict.returns.web1!.retcode, 1);
  t.match(JSON.stringify(strict.returns.web1!.return), /strict\.sls.*params has no key 'needed'/);
  const ok = await cluster.run('web1', 'state.sls', ['strict'], { timeout: 30, kwarg: { params: { needed: 'here' } } });
  t.equal(ok.returns.web1!.retcode, 0, JSON.stringify(ok.returns.web1!.return));
});

t.test('brine validate --minion renders on the master for that minion', async (t) => {
  const r = await cluster.brine(['validate', 'motd', '--minion', 'web2']);
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as {
    parameters: { GLOBAL: unknown; ID_DECS: Record<string, unknown> };
    warnings: { ID_DECS: Record<string, unknown> };
    low: Array<{ name: string }>;
  };
  t.same(report.parameters.GLOBAL, { suffix: '' });
  t.same(report.parameters.ID_DECS, { 'motd.motd': { suffix: '' } });
  t.same(report.warnings.ID_DECS, { 'motd.motd': { params_meta_missing: ['suffix'] } });
  t.equal(report.low[0]!.name, `${out}/web2/motd`, "rendered with web2's grains");
});

t.test("a bindings error is that minion's compile error, with file and line", async (t) => {
  writeTree(site, {
    'bindings/default.yaml': `bindings_version: 1
name: 'default'
bind:
  - when: {node: web2}
    bind:
      - ['motd.greeting', 'hi web2']
      - ['motd.greeting', 'twice']
  - when: {planet: mars}
    bind:
      - ['motd.pkg', 'none']
`,
  });
  const r = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  t.equal(r.returns.web2!.retcode, 1);
  const errors = r.returns.web2!.return as string[];
  t.match(errors.join('\n'), new RegExp(`${site}/bindings/default.yaml:\\d+: error BRINE_ERR_BINDINGS_DUPLICATE`));
  t.match(errors.join('\n'), /bindings\/default\.yaml:8: error BRINE_ERR_BINDINGS_UNKNOWN_CATEGORY/);
  t.equal(r.returns.web1!.retcode, 1, 'a file-level error (unknown category) concerns every minion');
  writeTree(site, {
    'bindings/default.yaml': `bindings_version: 1
name: 'default'
bind:
  - when: {node: web2}
    bind:
      - ['motd.greeting', 'hi web2']
      - ['motd.greeting', 'twice']
`,
  });
  const again = await cluster.run('*', 'state.apply', [], { timeout: 30 });
  t.equal(again.returns.web1!.retcode, 0, 'web1 is not concerned by web2 block');
  t.equal(again.returns.web2!.retcode, 1);
  const items = await cluster.run('web2', 'pillar.items');
  t.equal(items.returns.web2!.retcode, 1);
  t.match(JSON.stringify(items.returns.web2!.return), /BRINE_ERR_BINDINGS_DUPLICATE/);
  const alive = await cluster.run('*', 'test.ping');
  t.same(Object.keys(alive.returns).sort(), ['web1', 'web2'], 'the master carries on');
});
