import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { writeTree } from './helpers/fleet-tree.js';
import { brine } from './support/brine-cli.js';

/** `brine local` as `salt-call --local`: pillar roots rendered like the master's, a minion config. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-local-pillar-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

writeTree(dir, {
  'states/top.sls': "base:\n  '*':\n    - app\n  'I@app:tier:web':\n    - web\n",
  'states/app.sls':
    "app:\n  test.nop:\n    - tier: {{ pillar['app']['tier'] }}\n    - port: {{ salt['pillar.get']('app:port', 0) }}\n    - region: {{ pillar.get('region', 'none') }}\n",
  'states/web.sls': 'web:\n  test.nop: []\n',
  'pillar/top.sls': "base:\n  'G@kernel:* and not nomatch*':\n    - app\n",
  'pillar/app.sls': "include:\n  - .defaults\n{% set tier = 'web' if grains['id'].startswith('web') else 'db' %}\napp:\n  tier: {{ tier }}\n",
  'pillar/defaults.sls': 'app:\n  tier: none\n  port: 8080\n',
  'prod-pillar/top.sls': "prod:\n  '*':\n    - region\n",
  'prod-pillar/region.sls': 'region: eu\n',
  'broken-pillar/top.sls': "base:\n  '*':\n    - bad\n",
  'broken-pillar/bad.sls': 'a:\n  b: {{ nosuch.attr.deeper }}\n',
});

const low = async (args: string[]) => {
  const run = await brine(['local', 'state.show_lowstate', '--out', 'json', ...args], { cwd: dir });
  return { run, low: run.code === 0 ? (JSON.parse(run.stdout).local as Array<Record<string, unknown>>) : [] };
};

t.test('--pillar-root DIR: a pillar top file, Jinja pillar SLS, includes merged under the including file', async (t) => {
  const web = await low(['--file-root', 'states', '--pillar-root', 'pillar', '--id', 'web1']);
  t.equal(web.run.code, 0, web.run.stderr);
  t.same(
    web.low.map((c) => c.__id__),
    ['app', 'web'],
    'the pillar-targeted SLS matched (I@app:tier:web)',
  );
  t.same([web.low[0]!.tier, web.low[0]!.port, web.low[0]!.region], ['web', 8080, 'none']);
  const db = await low(['--file-root', 'states', '--pillar-root', 'pillar', '--id', 'db1']);
  t.same(
    db.low.map((c) => c.__id__),
    ['app'],
  );
  t.equal(db.low[0]!.tier, 'db');
  const items = await brine(['local', 'pillar.items', '--out', 'json', '--pillar-root', 'pillar', '--id', 'db1'], { cwd: dir });
  t.same(JSON.parse(items.stdout), { local: { app: { tier: 'db', port: 8080 } } });
});

t.test('--pillar-root ENV=DIR adds an environment; --pillar FILE goes on top', async (t) => {
  writeTree(dir, { 'over.yaml': 'app:\n  port: 9\n' });
  const r = await low(['--file-root', 'states', '--pillar-root', 'pillar', '--pillar-root', 'prod=prod-pillar', '--pillar', 'over.yaml', '--id', 'db1']);
  t.equal(r.run.code, 0, r.run.stderr);
  t.same([r.low[0]!.tier, r.low[0]!.port, r.low[0]!.region], ['db', 9, 'eu']);
});

t.test('--config minion.yaml: file_roots, pillar_roots, grains and id', async (t) => {
  writeTree(dir, {
    'minion.yaml': [
      'id: web7',
      'file_roots:',
      '  base:',
      `    - ${path.join(dir, 'cfg-states')}`,
      `    - ${path.join(dir, 'states')}`,
      'pillar_roots:',
      `  base: [${path.join(dir, 'pillar')}]`,
      'grains:',
      '  role: frontend',
      '',
    ].join('\n'),
    'cfg-states/top.sls': "base:\n  'G@role:frontend and web*':\n    - app\n  'not web7':\n    - web\n",
  });
  const r = await low(['--config', 'minion.yaml']);
  t.equal(r.run.code, 0, r.run.stderr);
  t.same(
    r.low.map((c) => c.__id__),
    ['app'],
    "the config's top file (first root wins), grains and id",
  );
  t.equal(r.low[0]!.tier, 'web');
  const flags = await low(['--config', 'minion.yaml', '--id', 'db2']);
  t.same(
    flags.low.map((c) => c.__id__),
    ['web'],
    '--id wins over the config',
  );
  const grains = await brine(['local', 'grains.items', '--out', 'json', '--config', 'minion.yaml'], { cwd: dir });
  t.equal(JSON.parse(grains.stdout).local.role, 'frontend');
});

t.test('a pillar that fails to render fails the compile, naming the pillar file and line', async (t) => {
  const r = await low(['--file-root', 'states', '--pillar-root', 'broken-pillar', '--id', 'db1']);
  t.equal(r.run.code, 1);
  t.match(r.run.stderr, /broken-pillar\/bad\.sls:2:\d+: error BRINE_ERR_COMPILE_TEMPLATE: pillar: /);
  const missing = await brine(['local', 'state.show_lowstate', '--pillar-root', 'nope'], { cwd: dir });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /BRINE_ERR_CLI_BAD_PILLAR_ROOT/);
  const badConfig = await brine(['local', 'state.show_lowstate', '--config', 'nope.yaml'], { cwd: dir });
  t.match(badConfig.stderr, /minion config .*nope\.yaml: no such file/);
});
