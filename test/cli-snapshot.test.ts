import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { codeCacheOf } from '../packages/cli/src/snapshot-code-cache.js';
import { copyInstall } from './helpers/install-copy.js';

// `brine local` started by the launcher (packages/cli/bin/brine) from the startup snapshot that
// `npm run build` makes (scripts/snapshot.mjs), in a copy of the built code: the same answers as
// the modules, the environment of the run (not of the build), and the modules whenever the
// snapshot does not fit (another node, stale modules, BRINE_SNAPSHOT=off, other verbs).
const BLOB = `node-${process.version}-${process.platform}-${process.arch}`;

let dir = '';
let buildCache = '';
t.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'brine-snapshot-'));
  buildCache = path.join(dir, 'build-cache');
  // what the build's environment says must not reach a run
  copyInstall(dir, { BRINE_TEMPLATE_CACHE: buildCache, XDG_CACHE_HOME: buildCache });
});
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A formula's shape: map.jinja imported with context, grains.filter_by, pillar.get, a loop, a require. */
function writeTree(): { tree: string; target: string; args: string[] } {
  const tree = mkdtempSync(path.join(dir, 'tree-'));
  const target = path.join(tree, 'target');
  const files: Record<string, string> = {
    'states/top.sls': "base:\n  '*':\n    - web\n",
    'states/web/map.jinja':
      "{% set os_map = salt['grains.filter_by']({'Debian': {'port': 80, 'sites': {'a': 1, 'b': 2}}}, default='Debian') %}\n" +
      "{% set web = salt['pillar.get']('web', default=os_map, merge=True) %}\n",
    'states/web/init.sls':
      '{% from "web/map.jinja" import web with context %}\n' +
      `web-dir:\n  file.directory:\n    - name: ${target}\n` +
      '{% for site, n in web.sites | dictsort %}\n' +
      `site-{{ site }}:\n  file.managed:\n    - name: ${target}/{{ site }}.conf\n    - contents: "port {{ web.port }} n {{ n }}"\n    - require:\n      - file: web-dir\n` +
      '{% endfor %}\n' +
      'noted:\n  test.succeed_with_changes: []\n',
    'pillar/top.sls': "base:\n  '*':\n    - web\n",
    'pillar/web.sls': 'web:\n  port: 8080\n',
    'grains.json': '{"os_family": "Debian", "os": "Debian"}\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
    writeFileSync(path.join(tree, rel), text);
  }
  const args = ['--file-root', `${tree}/states`, '--pillar-root', `${tree}/pillar`, '--grains', `${tree}/grains.json`, '--id', 'web1', '--out', 'json'];
  return { tree, target, args };
}

/** Runs the copy's launcher as a user's shell would, with the test's node first on PATH. */
function brine(args: string[], env: NodeJS.ProcessEnv = {}, program = path.join(dir, 'packages/cli/bin/brine')) {
  const r = spawnSync(program, args, {
    cwd: os.tmpdir(),
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      NO_COLOR: '1',
      BRINE_SNAPSHOT: 'show',
      ...env,
    },
    encoding: 'utf8',
  });
  const start = r.stderr.split('\n').filter((l) => l.startsWith('brine: start: '));
  const stderr = r.stderr
    .split('\n')
    .filter((l) => !l.startsWith('brine: start: '))
    .join('\n');
  return { code: r.status, stdout: r.stdout, stderr, start: start.map((l) => l.slice(14).replace(/ .*/, '')) };
}

type Results = { local: Record<string, { start_time: string; duration: number; [k: string]: unknown }> };

/** Milliseconds into the day of `d` on the wall clock of time zone `tz`. */
function msOfDay(d: Date, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(d);
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return ((n('hour') * 60 + n('minute')) * 60 + n('second')) * 1000 + d.getMilliseconds();
}

/** An apply through the launcher; each state's start_time checked against the run's wall clock in `tz`. */
function apply(t: Tap.Test, env: NodeJS.ProcessEnv, tz: string) {
  const { tree, target, args } = writeTree();
  const before = new Date();
  const r = brine(['local', 'state.apply', ...args], { ...env, TZ: tz });
  const after = new Date();
  t.equal(r.code, 0, r.stderr);
  const results = JSON.parse(r.stdout.replaceAll(tree, 'TREE')) as Results;
  const [from, to] = [msOfDay(before, tz), msOfDay(after, tz)];
  for (const [tag, res] of Object.entries(results.local)) {
    const [h, m, s] = res.start_time.split(':').map(Number);
    const at = Math.floor(((h * 60 + m) * 60 + s) * 1000);
    // (a run across midnight is not checked)
    if (from <= to) t.ok(at >= from - 1 && at <= to + 1, `${tag}: started at ${res.start_time} (${tz}), within the run`);
    res.start_time = 'T';
    res.duration = 0;
  }
  t.equal(readFileSync(path.join(target, 'b.conf'), 'utf8'), 'port 8080 n 2\n');
  return { start: r.start, results };
}

t.test('local show_lowstate and apply from the snapshot: the answers of the modules', async (t) => {
  t.ok(existsSync(path.join(dir, 'packages/cli/dist/snapshot', `${BLOB}.blob`)), `the build made ${BLOB}.blob`);
  const { args } = writeTree();
  const snap = brine(['local', 'state.show_lowstate', ...args]);
  t.same(snap.start, ['snapshot']);
  t.equal(snap.code, 0, snap.stderr);
  t.equal(snap.stderr, '');
  const mods = brine(['local', 'state.show_lowstate', ...args], { BRINE_SNAPSHOT: 'off' });
  t.same(mods.start, [], 'BRINE_SNAPSHOT=off: the modules, without a word');
  t.equal(snap.stdout, mods.stdout);
  t.match(snap.stdout, /"port 8080 n 2"/);

  const a = apply(t, {}, 'UTC');
  t.same(a.start, ['snapshot']);
  const b = apply(t, { BRINE_SNAPSHOT: 'off' }, 'UTC');
  t.same(a.results, b.results, 'the same results (times aside)');
  // the zone of the run, not of the build
  t.same(apply(t, {}, 'Asia/Kolkata').start, ['snapshot']);
});

t.test("the blob holds no code cache of Node's own modules: read at every start, used by no run", async (t) => {
  const blob = readFileSync(path.join(dir, 'packages/cli/dist/snapshot', `${BLOB}.blob`));
  t.same(codeCacheOf(blob), { at: blob.length - 8, count: 0 }, 'an empty list ends the blob');
  // a blob as Node makes it has one, and the finder sees it
  writeFileSync(path.join(dir, 'plain.js'), '');
  const made = spawnSync(process.execPath, ['--snapshot-blob', path.join(dir, 'plain.blob'), '--build-snapshot', path.join(dir, 'plain.js')], {
    encoding: 'utf8',
  });
  t.equal(made.status, 0, made.stderr);
  t.ok((codeCacheOf(readFileSync(path.join(dir, 'plain.blob')))?.count ?? 0) > 100, "a plain blob ends with one for each of Node's modules");
  t.equal(codeCacheOf(Buffer.from('no list of module ids ends this text')), undefined, 'another shape: nothing found, the blob is kept whole');
});

t.test("a run from the snapshot ends once its output is out, without waiting on Node's teardown, and not before its work", async (t) => {
  const { args } = writeTree();
  // a preload that says whether Node went on to its own end ('beforeExit'), and one that leaves a timer running
  const watch = path.join(dir, 'watch-exit.cjs');
  writeFileSync(watch, "process.on('beforeExit', () => process.stderr.write('before-exit\\n'));\n");
  const timer = path.join(dir, 'timer.cjs');
  writeFileSync(timer, "setTimeout(() => process.stderr.write('timer ran\\n'), 20);\n");
  const expected = brine(['local', 'state.show_lowstate', ...args], { BRINE_SNAPSHOT: 'off' }).stdout;
  for (const out of ['pipe', 'file']) {
    const file = path.join(dir, `lowstate-${out}.json`);
    const shell = out === 'file' ? `exec "$0" "$@" >${file}` : 'exec "$0" "$@"';
    const r = brine(
      ['-c', shell, path.join(dir, 'packages/cli/bin/brine'), 'local', 'state.show_lowstate', ...args],
      { NODE_OPTIONS: `--require ${watch}` },
      '/bin/sh',
    );
    t.same(r.start, ['snapshot']);
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stderr, '', `stdout to a ${out}: no 'beforeExit', the process ended at once`);
    t.equal(out === 'file' ? readFileSync(file, 'utf8') : r.stdout, expected, `the whole output, to a ${out}`);
  }
  const waited = brine(['local', 'state.show_lowstate', ...args], { NODE_OPTIONS: `--require ${timer} --require ${watch}` });
  t.equal(waited.code, 0, waited.stderr);
  t.equal(waited.stderr, 'timer ran\nbefore-exit\n', 'a timer still pending: waited for, and Node ends as it would');
  t.equal(waited.stdout, expected);
});

t.test("glibc's malloc on huge pages for the restored process alone, not for the programs a run starts", { skip: process.platform !== 'linux' }, async (t) => {
  // the shell cmd.run starts: its environment, and its parent's (the restored process) as it began
  const probe = "env | grep TUNABLES || echo none; tr '\\0' '\\n' </proc/$PPID/environ | grep TUNABLES || echo none";
  const launched = brine(['local', 'cmd.run', probe, '--out', 'json']);
  t.same(launched.start, ['snapshot']);
  t.equal(launched.code, 0, launched.stderr);
  t.same(JSON.parse(launched.stdout), { local: 'none\nGLIBC_TUNABLES=glibc.malloc.hugetlb=1\nBRINE_GLIBC_TUNABLES=launcher' });
  const own = brine(['local', 'cmd.run', probe, '--out', 'json'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' });
  t.equal(own.code, 0, own.stderr);
  const mine = 'GLIBC_TUNABLES=glibc.malloc.arena_max=2';
  t.same(JSON.parse(own.stdout), { local: `${mine}\n${mine}` }, "the user's own tunables: left as they are");
});

/** A formula in the shape most share: parameters from YAML, pillar merged, include, yaml and json filters, requisites; grains over many lines. */
function writeCommonFormula(): string[] {
  const tree = mkdtempSync(path.join(dir, 'common-'));
  const files: Record<string, string> = {
    'states/top.sls': "base:\n  '*':\n    - web\n",
    'states/web/defaults.yaml': 'pkg: webd\nconf: /etc/webd.conf\nsites:\n  main: {port: 80, tls: false}\n  admin: {port: 8443, tls: true}\n',
    'states/web/map.jinja':
      "{%- set tplroot = tpldir.split('/')[0] %}\n{%- import_yaml tplroot ~ '/defaults.yaml' as defaults %}\n" +
      "{%- set web = salt['pillar.get']('web', default=defaults, merge=True) %}\n",
    'states/web/init.sls':
      "include:\n  - .conf\n{%- from tpldir ~ '/map.jinja' import web with context %}\nweb-pkg:\n  pkg.installed:\n    - name: {{ web.pkg }}\n",
    'states/web/conf.sls':
      "{%- from tpldir ~ '/map.jinja' import web with context %}\n{%- for name, site in web.sites | dictsort %}\n" +
      'web-site-{{ name }}:\n  file.managed:\n    - name: {{ web.conf }}.{{ name }}\n    - contents: |\n' +
      '        {{ site | yaml(False) | indent(8) }}\n        {{ site | json }}\n    - watch_in:\n      - service: web-service\n{%- endfor %}\n' +
      'web-service:\n  service.running:\n    - name: {{ web.pkg | upper }}\n',
    'pillar/top.sls': "base:\n  '*':\n    - web\n",
    'pillar/web.sls': 'web:\n  sites:\n    main:\n      port: 8080\n',
    'grains.json': JSON.stringify(
      { os_family: 'Debian', os: 'Debian', id: 'web1', ipv4: ['10.1.1.1'], num_cpus: 4, ip4_interfaces: { eth0: ['10.1.1.1'] } },
      null,
      2,
    ),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
    writeFileSync(path.join(tree, rel), text);
  }
  return ['--file-root', `${tree}/states`, '--pillar-root', `${tree}/pillar`, '--grains', `${tree}/grains.json`, '--id', 'web1', '--out', 'json'];
}

/** How many of Brine's functions a show_lowstate from the snapshot compiles at run time (a tier of V8's); its output as the modules'. */
function compiledByRun(t: Tap.Test, args: string[], tier = 'interpreter', own: string[] = []): number {
  const log = path.join(dir, 'functions.log');
  const blob = path.join(dir, 'packages/cli/dist/snapshot', `${BLOB}.blob`);
  const flags = [...own, '--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', '--snapshot-blob', blob];
  const r = spawnSync(process.execPath, [...flags, 'local', 'state.show_lowstate', ...args], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.equal(r.stdout, brine(['local', 'state.show_lowstate', ...args], { BRINE_SNAPSHOT: 'off' }).stdout);
  const lines = readFileSync(log, 'utf8').split('\n');
  const script = lines.find((l) => l.startsWith('script-details,') && l.includes('/snapshot/main.cjs'))?.split(',')[1];
  return lines.filter((l) => l.startsWith(`function,${tier},${script},`)).length;
}

t.test('a formula of the common shape runs on code the snapshot holds compiled: few functions compiled at run time', async (t) => {
  const compiled = compiledByRun(t, writeCommonFormula());
  // (60 before the warm-up's second formula and the restore path compiled at build; 15 then)
  t.ok(compiled <= 30, `${compiled} of Brine's functions compiled by the run`);
});

t.test("a run from the snapshot leaves out V8's baseline compiles: too short a run to pay for them", async (t) => {
  const compiled = compiledByRun(t, writeCommonFormula(), 'baseline');
  // (~370 with them; those left happen before the run turns them off)
  t.ok(compiled <= 100, `${compiled} of Brine's functions baseline-compiled by the run`);
  // a process given tier flags of its own keeps them (as jit-tiering.ts leaves them alone)
  const own = compiledByRun(t, writeCommonFormula(), 'baseline', ['--always-sparkplug']);
  t.ok(own > 100, `${own} of Brine's functions baseline-compiled under --always-sparkplug`);
});

/** A formula that asks the host (file and command queries, config.get), folds a YAML scalar, imports YAML, spreads **. */
function writeAskingFormula(): string[] {
  const tree = mkdtempSync(path.join(dir, 'asking-'));
  const files: Record<string, string> = {
    'states/top.sls': "base:\n  '*':\n    - db.more\n",
    'states/db/init.sls':
      "{%- set conf = salt['config.get']('db:conf', default={'port': 5432, 'dirs': ['/a', '/b']}) %}\n" +
      "{%- set has = salt['file.file_exists']('/etc/db.conf') %}\n{%- set bin = salt['cmd.which']('dbctl') %}\n" +
      "db-conf:\n  file.managed:\n    - name: {{ '{}/db.conf'.format(conf.dirs[1:] | first) }}\n    - mode: 0644\n" +
      '    - contents: >\n        port {{ conf.port | int + 1 }}\n        ready {{ has or bin is none }}\n',
    'states/db/more.sls':
      "include:\n  - db\n{%- import_yaml tpldir ~ '/defaults.yaml' as defaults %}\n{%- set extra = {'port': 1, 'x': 2} %}\n" +
      "{%- do extra.pop('x') %}\ndb-more:\n  test.nop:\n    - conf: {{ dict(defaults.db, **extra) | json }}\n" +
      "    - dir: {{ salt['file.dirname']('/srv/db/x.conf') }}\n    - require:\n      - sls: db\n",
    'states/db/defaults.yaml': 'db:\n  motd: "one\n    two"\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
    writeFileSync(path.join(tree, rel), text);
  }
  return ['--file-root', `${tree}/states`, '--id', 'db1', '--out', 'json'];
}

t.test('a formula asking the host runs on code the snapshot holds compiled: few functions compiled at run time', async (t) => {
  const compiled = compiledByRun(t, writeAskingFormula());
  // (90 before the warm-up's formula that asks the host, 26 with its first part alone; 13 then)
  t.ok(compiled <= 20, `${compiled} of Brine's functions compiled by the run`);
});

/** A tree of file states for an apply: a new file, one in place, one whose mode changes, a test state. */
function writeApplyTree(extra = ''): { tree: string; out: string; args: string[] } {
  const tree = mkdtempSync(path.join(dir, 'apply-'));
  const out = path.join(tree, 'out');
  mkdirSync(path.join(tree, 'states'), { recursive: true });
  mkdirSync(out);
  writeFileSync(path.join(out, 'same.txt'), 'same\n');
  writeFileSync(path.join(out, 'mode.txt'), 'mode\n', { mode: 0o644 });
  writeFileSync(path.join(tree, 'states/top.sls'), "base:\n  '*':\n    - files\n");
  writeFileSync(
    path.join(tree, 'states/files.sls'),
    `new:\n  file.managed:\n    - name: ${out}/new.txt\n    - contents: new\n` +
      `same:\n  file.managed:\n    - name: ${out}/same.txt\n    - contents: same\n    - require:\n      - file: new\n` +
      `mode:\n  file.managed:\n    - name: ${out}/mode.txt\n    - contents: mode\n    - mode: '0600'\n` +
      'noted:\n  test.succeed_with_changes: []\n' +
      extra,
  );
  return { tree, out, args: ['--file-root', `${tree}/states`, '--id', 'web1', '--out', 'json'] };
}

/** An apply's results with the tree's folder and the timing fields made constant. */
function applied(r: { code: number | null; stdout: string; stderr: string }, tree: string): Results['local'] {
  const results = (JSON.parse(r.stdout.replaceAll(tree, 'TREE')) as Results).local;
  for (const res of Object.values(results)) {
    res.start_time = 'T';
    res.duration = 0;
  }
  return results;
}

t.test('file states applied from the snapshot: the results of the modules, test=True and real', async (t) => {
  for (const test of [['test=True'], []]) {
    const runs = [{}, { BRINE_SNAPSHOT: 'off' }].map((env) => {
      const { tree, out, args } = writeApplyTree();
      const r = brine(['local', 'state.apply', ...test, ...args], env);
      t.equal(r.code, 0, r.stderr);
      const modes = ['new', 'same', 'mode'].map((f) => (existsSync(`${out}/${f}.txt`) ? statSync(`${out}/${f}.txt`).mode & 0o777 : -1));
      return { start: r.start, results: applied(r, tree), modes };
    });
    t.same(runs[0].start, ['snapshot']);
    t.same(runs[0].results, runs[1].results, `the same results ${test.join(' ')}`);
    t.same(runs[0].modes, runs[1].modes, 'the same files');
  }
});

t.test("a umask set for the run is the run's, not the build's", { skip: process.platform === 'win32' }, async (t) => {
  const { tree, out, args } = writeApplyTree();
  const launcher = path.join(dir, 'packages/cli/bin/brine');
  const r = brine(['-c', 'umask 077 && exec "$0" "$@"', launcher, 'local', 'state.apply', ...args], {}, '/bin/sh');
  t.same(r.start, ['snapshot']);
  t.equal(r.code, 0, r.stderr);
  t.equal(statSync(`${out}/new.txt`).mode & 0o777, 0o600, 'a new file: 0666 less the umask 077');
  t.ok(applied(r, tree));
});

// Needs root and a mount namespace: /etc/passwd seen by the run alone (the build read the real one).
const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'true']).status === 0;
t.test('/etc/passwd read by the run, even with the mtime the build saw', { skip: !canUnshare && 'needs root and unshare -m' }, async (t) => {
  // a user of the real table given uid 0 in the run's: a file of root's is already theirs
  const lines = readFileSync('/etc/passwd', 'utf8').split('\n');
  const at = lines.findIndex((l) => l.split(':').length >= 7 && l.split(':')[2] !== '0');
  const user = lines[at].split(':')[0];
  lines[at] = lines[at].replace(/^([^:]*:[^:]*:)[^:]*/, '$10');
  const fake = path.join(dir, 'passwd');
  writeFileSync(fake, lines.join('\n'));
  // the same mtime as the real one: only a table read again sees the change
  t.equal(spawnSync('touch', ['-r', '/etc/passwd', fake]).status, 0);
  const owned = path.join(dir, 'owned.txt');
  writeFileSync(owned, 'owned\n');
  const { tree, args } = writeApplyTree(`owned:\n  file.managed:\n    - name: ${owned}\n    - contents: owned\n    - user: ${user}\n`);
  const launcher = path.join(dir, 'packages/cli/bin/brine');
  const inNamespace = ['-m', '/bin/sh', '-c', `mount --bind ${fake} /etc/passwd && exec "$0" "$@"`, launcher, 'local', 'state.apply', ...args];
  const r = brine(inNamespace, {}, 'unshare');
  t.same(r.start, ['snapshot']);
  t.equal(r.code, 0, r.stderr);
  const ret = applied(r, tree)[`file_|-owned_|-${owned}_|-managed`];
  t.same(ret?.changes, {}, `${user} is uid 0 in the run's /etc/passwd`);
  t.equal(statSync(owned).uid, 0);
});

t.test("the run's environment, not the build's: caches, debug files", async (t) => {
  const { args } = writeTree();
  const xdg = path.join(dir, 'xdg');
  const debug = path.join(dir, 'yaml-debug.jsonl');
  const r = brine(['local', 'state.show_lowstate', ...args], { XDG_CACHE_HOME: xdg, BRINE_TEMPLATE_CACHE: '', BRINE_YAML_DEBUG: debug });
  t.same(r.start, ['snapshot']);
  t.equal(r.code, 0, r.stderr);
  t.ok(readdirSync(path.join(xdg, 'brine/jinja')).length > 0, "compiled templates go to the run's cache folder");
  t.notOk(existsSync(buildCache), "nothing in the build's");
  t.ok(existsSync(debug) && readFileSync(debug, 'utf8').includes('"fast"'), 'BRINE_YAML_DEBUG set at run time is honoured');
  const cache = path.join(dir, 'run-cache');
  const own = brine(['local', 'state.show_lowstate', ...args], { BRINE_TEMPLATE_CACHE: cache });
  t.equal(own.code, 0, own.stderr);
  t.ok(readdirSync(cache).length > 0, 'BRINE_TEMPLATE_CACHE of the run');
});

t.test("the template cache is keyed by the dialect the snapshot holds, not by jinja's files read at each run", async (t) => {
  const { args } = writeTree();
  const cache = path.join(dir, 'stamp-cache');
  const first = brine(['local', 'state.show_lowstate', ...args], { BRINE_TEMPLATE_CACHE: cache });
  t.equal(first.code, 0, first.stderr);
  const folders = readdirSync(cache);
  t.equal(folders.length, 1);
  // the same size and time (the snapshot stays fresh), other bytes: what a run of the blob runs is unchanged
  const dialect = path.join(dir, 'packages/jinja/dist/dialect.js');
  const text = readFileSync(dialect, 'utf8');
  const st = statSync(dialect);
  t.teardown(() => {
    writeFileSync(dialect, text);
    utimesSync(dialect, st.atime, st.mtime);
  });
  writeFileSync(dialect, text.replace('import', 'IMPORT'));
  utimesSync(dialect, st.atime, st.mtime);
  const again = brine(['local', 'state.show_lowstate', ...args], { BRINE_TEMPLATE_CACHE: cache });
  t.same(again.start, ['snapshot']);
  t.equal(again.code, 0, again.stderr);
  t.same(readdirSync(cache), folders, 'the entries of the first run are the ones read');
});

t.test('a snapshot folder copied from another install is made again by the build', async (t) => {
  const other = mkdtempSync(path.join(os.tmpdir(), 'brine-snapshot-other-'));
  t.teardown(() => rmSync(other, { recursive: true, force: true }));
  // as `cp -a` copies a built tree: the compiled modules' times kept, so the stamps still match
  cpSync(dir, other, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  const build = spawnSync(process.execPath, ['scripts/snapshot.mjs'], { cwd: other, encoding: 'utf8' });
  t.equal(build.status, 0, build.stderr);
  t.notMatch(build.stdout, /up to date/, 'the blob holds the folder it was made in: made again');
  const { args } = writeTree();
  const r = spawnSync(path.join(other, 'packages/cli/bin/brine'), ['local', 'state.show_lowstate', ...args], {
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, BRINE_SNAPSHOT: 'show' },
    encoding: 'utf8',
  });
  t.equal(r.status, 0, r.stderr);
  t.same(
    r.stderr
      .split('\n')
      .filter((l) => l.startsWith('brine: start: '))
      .map((l) => l.slice(14).replace(/ .*/, '')),
    ['snapshot'],
  );
});

t.test('the modules when the snapshot does not fit, with the same answer and no error', async (t) => {
  const { args } = writeTree();
  const expected = brine(['local', 'state.show_lowstate', ...args], { BRINE_SNAPSHOT: 'off' }).stdout;
  const id = path.join(dir, 'packages/cli/dist/snapshot', `${BLOB}.id`);
  const made = readFileSync(id, 'utf8');
  const check = (why: string, start: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = brine(['local', 'state.show_lowstate', ...args], env);
    t.same(r.start, start, why);
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stdout, expected, why);
  };
  // a blob made by another node binary (it would abort this one)
  writeFileSync(id, made.replace(/^.*/, '/bin/sh'));
  check('another node made the blob', ['modules']);
  writeFileSync(id, made);
  check('the blob of this node', ['snapshot']);
  // this node changed since the blob was made
  utimesSync(id, new Date(946684800_000), new Date(946684800_000));
  check('a node newer than the blob', ['modules']);
  writeFileSync(id, made);
  // other verbs are never started from the snapshot
  const v = brine(['version']);
  t.same(v.start, ['modules']);
  t.match(v.stdout, /^brine /);
  // a compiled module changed after the build (only tsc -b ran): the snapshot hands over
  const index = path.join(dir, 'packages/core/dist/index.js');
  const later = new Date(Date.now() + 5_000);
  utimesSync(index, later, later);
  const r = brine(['local', 'state.show_lowstate', ...args]);
  t.same(r.start, ['snapshot', 'modules'], 'the snapshot found its modules stale');
  t.equal(r.code, 0);
  t.equal(r.stdout, expected);
  t.match(r.stderr, /bundle is stale/, "bin.js's own word about the stale build");
});
