import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import { brine } from './support/brine-cli.js';

/**
 * A formula-like tree applied through a real master with two real minions gives, state by state,
 * the same result, comment and changes as `brine local` on the same host with the same tree,
 * pillar and grains: test=True over everything (packages, services, a user and group this run
 * would create), then a real apply, twice, of the parts confined to a temp dir (files,
 * directories, commands). The only things normalised away are durations and start times.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-parity-'));
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
const out = path.join(dir, 'out');
// throwaway names nobody has: test=True only predicts them, nothing is created
const tag = `${process.pid}${Date.now() % 100000}`;
const user = `brine-e2e-u${tag}`;
const group = `brine-e2e-g${tag}`;

writeTree(states, {
  'top.sls': "base:\n  '*':\n    - app\n  'G@role:web':\n    - match: compound\n    - app.web\n",
  // the formula idiom: per-OS and per-role defaults, the pillar's lookup merged over them
  'app/map.jinja': `{%- set os_map = salt['grains.filter_by']({
    'Debian': {'pkgs': ['coreutils', 'findutils'], 'service': 'cron'},
    'RedHat': {'pkgs': ['coreutils'], 'service': 'crond'},
  }, grain='os_family', default='Debian') %}
{%- set role_map = salt['grains.filter_by']({
    'web': {'port': 80, 'role': 'web'},
    'db': {'port': 5432, 'role': 'db'},
  }, grain='role', default='db', merge=salt['pillar.get']('app:lookup', {})) %}
{%- do os_map.update(role_map) %}
{%- set app = os_map %}
`,
  'app/init.sls': 'include:\n  - app.config\n  - app.cmds\n  - app.system\n',
  'app/dirs.sls': `{%- from "app/map.jinja" import app with context %}
app-root:
  file.directory:
    - name: {{ app.root }}/{{ grains['id'] }}/etc
    - makedirs: True
    - mode: '0755'
app-data:
  file.directory:
    - name: {{ app.root }}/{{ grains['id'] }}/data
    - makedirs: True
    - require:
      - file: app-root
`,
  'app/config.sls': `{%- from "app/map.jinja" import app with context %}
include:
  - app.dirs
app-conf:
  file.managed:
    - name: {{ app.root }}/{{ grains['id'] }}/etc/app.conf
    - source: salt://app/files/app.conf.j2
    - template: jinja
    - mode: '0640'
    - flavour: {{ app.role }}
    - context:
        colour: blue
    - require:
      - sls: app.dirs
app-motd:
  file.managed:
    - name: {{ app.root }}/{{ grains['id'] }}/etc/motd
    - contents: |
        {{ grains['id'] }} serves {{ app.role }} on {{ app.port }}
    - require:
      - file: app-root
`,
  'app/files/app.conf.j2': `{%- from "app/map.jinja" import app with context %}
# {{ source }}
id={{ grains['id'] }}
port={{ app.port }}
flavour={{ flavour }}
colour={{ colour }}
greeting={{ pillar['app']['greeting'] }}
pkgs={{ app.pkgs | join(',') }}
{{ salt['slsutil.serialize']('yaml', {'users': pillar['app']['users']}, default_flow_style=False) }}`,
  'app/cmds.sls': `{%- from "app/map.jinja" import app with context %}
{%- set root = app.root ~ '/' ~ grains['id'] %}
include:
  - app.config
app-marker:
  cmd.run:
    - name: touch {{ root }}/data/marker
    - unless: test -f {{ root }}/data/marker
    - require:
      - sls: app.config
app-never:
  cmd.run:
    - name: touch {{ root }}/data/never
    - onlyif: test -f {{ root }}/data/nosuch
app-reload:
  cmd.run:
    - name: echo reloaded >> {{ root }}/data/reloads
    - onchanges:
      - file: app-conf
app-watcher:
  cmd.wait:
    - name: echo watched >> {{ root }}/data/watches
    - watch:
      - file: app-motd
`,
  'app/system.sls': `{%- from "app/map.jinja" import app with context %}
app-group:
  group.present:
    - name: ${group}
app-user:
  user.present:
    - name: ${user}
    - createhome: False
    - gid: ${group}
    - require:
      - group: app-group
app-owned:
  file.managed:
    - name: {{ app.root }}/{{ grains['id'] }}/etc/owned
    - contents: owned
    - user: ${user}
    - group: ${group}
    - require:
      - user: app-user
app-pkgs:
  pkg.installed:
    - pkgs: {{ app.pkgs | json }}
app-service:
  service.running:
    - name: {{ app.service }}
    - enable: True
    - watch:
      - file: app-conf
    - require:
      - pkg: app-pkgs
`,
  'app/web.sls': `include:
  - app
app-web:
  test.succeed_with_changes:
    - require:
      - sls: app
`,
});
writeTree(pillar, {
  'top.sls': "base:\n  '*':\n    - app\n  'p2':\n    - app.p2\n",
  'app/init.sls': `app:
  greeting: hello {{ grains['id'] }}
  users: [ann, bob]
  lookup:
    root: ${out}
`,
  'app/p2.sls': 'app:\n  lookup:\n    port: 8443\n',
});

const grainsOf = (id: string) => ({ role: id === 'p1' ? 'web' : 'db' });
const ids = ['p1', 'p2'];
const cluster = new Cluster({
  minions: ids,
  minionConfig: (id) => ({ grains: grainsOf(id) }),
  master: { file_roots: { base: [states] }, pillar_roots: { base: [pillar] }, timeout: 60 },
});
for (const id of ids) {
  writeFileSync(path.join(dir, `local-${id}.yaml`), stringify({ id, file_roots: { base: [states] }, pillar_roots: { base: [pillar] }, grains: grainsOf(id) }));
}

t.before(async () => {
  await cluster.start();
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every file under `root` (relative path: mode and contents). */
function snapshot(root: string, rel = ''): Record<string, { mode: string; text?: string }> {
  const got: Record<string, { mode: string; text?: string }> = {};
  for (const name of readdirSync(path.join(root, rel)).sort()) {
    const r = path.join(rel, name);
    const st = statSync(path.join(root, r));
    got[r] = { mode: (st.mode & 0o7777).toString(8), ...(st.isFile() ? { text: readFileSync(path.join(root, r), 'utf8') } : {}) };
    if (st.isDirectory()) Object.assign(got, snapshot(root, r));
  }
  return got;
}

interface StateReturn {
  result: boolean | null;
  comment: string;
  changes: Record<string, unknown>;
  __run_num__: number;
}
type Running = Record<string, StateReturn>;

/** A command's process id differs from run to run, whichever path ran it. */
function withoutPid(changes: Record<string, unknown>): Record<string, unknown> {
  if (typeof changes.pid !== 'number') return changes;
  return { ...changes, pid: 'PID' };
}

/** What must agree: result, comment and changes per state key, in run order. */
function comparable(running: Running): Array<[string, { result: boolean | null; comment: string; changes: unknown }]> {
  return Object.entries(running)
    .sort(([, a], [, b]) => a.__run_num__ - b.__run_num__)
    .map(([key, s]) => [key, { result: s.result, comment: s.comment, changes: withoutPid(s.changes) }]);
}

async function viaMaster(fun: string, arg: unknown[], test: boolean): Promise<Record<string, Running>> {
  const r = await cluster.run(ids, fun, arg, { tgt_type: 'list', timeout: 60, ...(test ? { kwarg: { test: true } } : {}) });
  const got: Record<string, Running> = {};
  for (const id of ids) {
    const ret = r.returns[id];
    if (!ret || typeof ret.return !== 'object' || Array.isArray(ret.return)) throw new Error(`${id}: ${JSON.stringify(ret ?? r.missing)}`);
    got[id] = ret.return as Running;
  }
  return got;
}

async function viaLocal(fun: string, arg: string[], test: boolean): Promise<Record<string, Running>> {
  const got: Record<string, Running> = {};
  for (const id of ids) {
    const run = await brine(['local', fun, ...arg, ...(test ? ['test=True'] : []), '--out', 'json', '--config', path.join(dir, `local-${id}.yaml`)]);
    if (!run.stdout.trim()) throw new Error(`brine local ${id}: ${run.code} ${run.stderr}`);
    got[id] = (JSON.parse(run.stdout) as { local: Running }).local;
  }
  return got;
}

function same(t: Test, master: Record<string, Running>, local: Record<string, Running>): void {
  for (const id of ids) {
    const m = comparable(master[id]!);
    const l = comparable(local[id]!);
    t.same(
      m.map(([k]) => k),
      l.map(([k]) => k),
      `${id}: the same states in the same order`,
    );
    const byKey = new Map(l);
    for (const [key, state] of m) t.same(state, byKey.get(key), `${id}: ${key}`);
  }
}

t.test('test=True over the whole tree: the master path and brine local agree state by state', async (t) => {
  const master = await viaMaster('state.apply', [], true);
  const local = await viaLocal('state.apply', [], true);
  same(t, master, local);
  const p1 = comparable(master.p1!);
  t.ok(p1.length === 14, `a formula-sized run (${p1.length} states)`);
  t.ok(
    p1.some(([, s]) => s.result === null),
    'some states predict changes',
  );
  t.notOk(existsSync(out), 'test=True wrote nothing');
  t.notOk(existsSync(path.join(out, 'p1')));
});

t.test('a real apply of the temp-dir parts, then a second: the same on both paths', async (t) => {
  const parts = 'app.config,app.cmds';
  const master1 = await viaMaster('state.sls', [parts], false);
  const master2 = await viaMaster('state.sls', [parts], false);
  const masterFiles = snapshot(out);
  rmSync(out, { recursive: true, force: true });
  const local1 = await viaLocal('state.sls', [parts], false);
  const local2 = await viaLocal('state.sls', [parts], false);
  t.test('first apply', async (t) => same(t, master1, local1));
  t.test('second apply', async (t) => same(t, master2, local2));
  t.same(snapshot(out), masterFiles, 'the same files, modes and contents on disk');
  t.match(masterFiles['p2/etc/app.conf'], {
    mode: '640',
    text: /^\n# salt:\/\/app\/files\/app.conf.j2\nid=p2\nport=8443\nflavour=db\ncolour=blue\ngreeting=hello p2\n/,
  });
  for (const id of ids) {
    t.ok(
      comparable(master1[id]!).every(([, s]) => s.result === true),
      `${id}: the first apply succeeded`,
    );
    t.ok(
      comparable(master2[id]!).every(([, s]) => s.result === true && Object.keys(s.changes).length === 0),
      `${id}: the second apply changed nothing`,
    );
  }
});

t.test('test=True after a hand edit: the same diffs on both paths', async (t) => {
  for (const id of ids) {
    writeFileSync(path.join(out, id, 'etc/app.conf'), 'edited by hand\n');
    writeFileSync(path.join(out, id, 'etc/motd'), 'edited by hand\n');
  }
  const master = await viaMaster('state.sls', ['app.config,app.cmds'], true);
  const local = await viaLocal('state.sls', ['app.config,app.cmds'], true);
  same(t, master, local);
  const conf = Object.entries(master.p1!).find(([k]) => k.startsWith('file_|-app-conf'))![1];
  t.match(conf.changes, { diff: /-edited by hand\n\+\n\+# salt:/ });
});
