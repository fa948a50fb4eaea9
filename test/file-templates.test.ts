import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

/**
 * A file template rendered on a real minion, as Salt renders it there: `{% from "app/map.jinja"
 * import ... %}` (which itself import_yaml's a file beside it) is fetched from the master's file
 * server, `salt[...]` calls run on the minion through its execution functions
 * (slsutil.serialize, file.file_exists, cmd.run), and the state's extra keyword argument and
 * context are template variables.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-file-templates-'));
const states = path.join(dir, 'states');
const out = path.join(dir, 'out');
writeTree(states, {
  'top.sls': "base:\n  '*':\n    - app\n",
  'app/defaults.yaml': 'app:\n  port: 8080\n  users: [ann, bob]\n',
  'app/map.jinja': '{%- import_yaml "app/defaults.yaml" as defaults %}\n{%- set app = defaults.app %}\n{%- macro kv(k, v) %}{{ k }}={{ v }}{% endmacro %}\n',
  'app/app.conf.j2': [
    '{%- from "app/map.jinja" import app, kv %}',
    "{{ kv('port', app.port) }}",
    "{{ kv('id', grains['id']) }}",
    "{{ kv('name', name) }}",
    "{{ kv('source', source) }}",
    "{{ kv('flavour', flavour) }}",
    "{{ kv('colour', colour) }}",
    "{{ kv('conf_dir', salt['file.directory_exists'](conf_dir)) }}",
    "{{ kv('echo', salt['cmd.run']('echo from-the-minion')) }}",
    "{{ salt['slsutil.serialize']('yaml', {'users': app.users}, default_flow_style=False) }}",
    '',
  ].join('\n'),
  'app/init.sls': `app-conf:
  file.managed:
    - name: ${out}/{{ grains['id'] }}/app.conf
    - source: salt://app/app.conf.j2
    - template: jinja
    - makedirs: True
    - flavour: vanilla
    - context:
        colour: blue
        conf_dir: ${states}
`,
});

const cluster = new Cluster({ minions: ['t1'], master: { file_roots: { base: [states] }, timeout: 30 } });
t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

type Running = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>;

t.test('a file template importing a map.jinja from salt:// renders on the minion with its functions', async (t) => {
  const r = await cluster.run('t1', 'state.apply', [], { timeout: 30 });
  const [first] = Object.values(r.returns.t1!.return as Running);
  t.equal(first!.result, true, first!.comment);
  const file = path.join(out, 't1', 'app.conf');
  t.equal(
    readFileSync(file, 'utf8'),
    [
      '',
      'port=8080',
      'id=t1',
      `name=${file}`,
      'source=salt://app/app.conf.j2',
      'flavour=vanilla',
      'colour=blue',
      'conf_dir=True',
      'echo=from-the-minion',
      'users:',
      '- ann',
      '- bob',
      '',
    ].join('\n'),
  );
  const again = await cluster.run('t1', 'state.apply', [], { timeout: 30 });
  const [second] = Object.values(again.returns.t1!.return as Running);
  t.equal(second!.result, true);
  t.same(second!.changes, {}, 'the second run changes nothing');
});
