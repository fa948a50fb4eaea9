import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { BIN } from './helpers/proc.js';

/**
 * `brine local` is started once per run on every host: what it loads at start is paid each time.
 * The network stacks belong to the commands that talk to a master; loading them at import once
 * cost `brine local test.ping` about 35 ms of its 160.
 */
t.test('brine local loads no http, https, http2 or tls module', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-startup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'top.sls'), 'base: {}\n');
  const list = path.join(dir, 'modules.txt');
  const hook = path.join(dir, 'hook.cjs');
  writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  const r = spawnSync(process.execPath, ['--require', hook, BIN, 'local', 'test.ping', '--file-root', dir, '--id', 'startup'], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /True/);
  const loaded = readFileSync(list, 'utf8').split('\n');
  t.ok(loaded.length > 50, 'the module list was written');
  t.same(
    loaded.filter((m) => /^NativeModule (https?|http2|tls|_http_client)$/.test(m)),
    [],
  );
  t.end();
});

/**
 * Importing node:util as an ES module reads every export, which loads about 15 more of Node's own
 * modules (worker threads among them): a few ms at each start. Brine takes what it needs of it by
 * require on this path.
 */
t.test('a compile and test.ping load no worker-thread module of Node', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-startup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'top.sls'), "base:\n  '*':\n    - a\n");
  writeFileSync(path.join(dir, 'a.sls'), "{% set n = 'a' %}\n{{ n }}:\n  test.nop: []\n");
  writeFileSync(path.join(dir, 'grains.json'), '{"os": "Debian"}\n');
  const list = path.join(dir, 'modules.txt');
  const hook = path.join(dir, 'hook.cjs');
  writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  for (const args of [
    ['local', 'state.show_lowstate', '--file-root', dir, '--id', 'startup', '--out', 'json', '--grains', path.join(dir, 'grains.json')],
    ['local', 'test.ping', '--file-root', dir, '--id', 'startup'],
  ]) {
    const r = spawnSync(process.execPath, ['--require', hook, BIN, ...args], { encoding: 'utf8' });
    t.equal(r.status, 0, r.stderr);
    const loaded = readFileSync(list, 'utf8').split('\n');
    t.ok(loaded.length > 50, 'the module list was written');
    t.same(
      loaded.filter((m) => /^NativeModule (worker_threads|internal\/worker)$/.test(m)),
      [],
      args[1],
    );
  }
  t.end();
});

/** Runs `brine ARGS` with a hook that records every module loaded (import and require), by URL. */
function loadedBy(t: Test, args: string[], env: NodeJS.ProcessEnv = {}): { urls: string[]; files: string[]; stdout: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-startup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'top.sls'), 'base: {}\n');
  writeFileSync(path.join(dir, 'a.sls'), 'a:\n  test.succeed_without_changes: []\n');
  writeFileSync(
    path.join(dir, 'b.sls'),
    'b:\n  test.nop:\n    - require:\n      - test: a\n    - v: {x: [1,\n        2], y: "z"}\n    - w: \'a glob *-log: is text\'\n',
  );
  writeFileSync(path.join(dir, 'c.sls'), "{% if salt['cmd.has_exec']('sh') %}\nc:\n  test.nop: []\n{% endif %}\n");
  writeFileSync(path.join(dir, 'grains.json'), '{\n  "os": "Debian",\n  "num_cpus": 2,\n  "machine_id": "4e2f0a",\n  "ip4": ["10.0.0.1"]\n}\n');
  const list = path.join(dir, 'modules.json');
  const hook = path.join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';\nimport { writeFileSync } from 'node:fs';\nconst urls = [];\n` +
      `registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });\n` +
      `process.on('exit', () => writeFileSync(${JSON.stringify(list)}, JSON.stringify(urls)));\n`,
  );
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, BIN, ...args.map((a) => a.replace('$DIR', dir))], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  t.equal(r.status, 0, r.stderr);
  const files = JSON.parse(readFileSync(list, 'utf8')) as string[];
  return { urls: unbundled(files), files, stdout: r.stdout };
}

/** The CLI's bundle: each of its files loaded stands for the modules it holds (its contents.json). */
function unbundled(urls: string[]): string[] {
  const bundle = pathToFileURL(path.join(path.dirname(BIN), 'bundle')).href + '/';
  if (!urls.some((u) => u.startsWith(bundle))) return urls;
  const root = path.resolve(path.dirname(BIN), '../../..');
  const contents = JSON.parse(readFileSync(new URL('contents.json', bundle), 'utf8')) as Record<string, string[]>;
  return urls.flatMap((u) => (u.startsWith(bundle) ? contents[u.slice(bundle.length)]!.map((m) => pathToFileURL(path.join(root, m)).href) : [u]));
}

/** The heavy parts no quick command needs: the master's stack, the store, templates, YAML, logging. */
const HEAVY =
  /node_modules\/(fastify|@fastify|better-sqlite3|pg|ws|pino|pino-pretty|nunjucks|yaml|prom-client)\/|packages\/(master|minion|compiler|jinja|runtime|states|protocol|bindings)\//;

t.test(
  'brine local test.ping loads no server, store, template, YAML, logging, compiler or state module',
  { skip: !module.registerHooks && 'no module.registerHooks' },
  (t) => {
    const { urls, stdout } = loadedBy(t, ['local', 'test.ping', '--file-root', '$DIR', '--id', 'startup']);
    t.match(stdout, /True/);
    t.ok(
      urls.some((u) => u.includes('packages/exec/')),
      'the execution functions were loaded',
    );
    t.same(
      urls.filter((u) => HEAVY.test(u)),
      [],
    );
    t.end();
  },
);

t.test('brine --version loads no command', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const { urls, stdout } = loadedBy(t, ['--version']);
  t.match(stdout, /^brine \d/);
  t.same(
    urls.filter((u) => HEAVY.test(u) || /packages\/(exec\/|cli\/dist\/(commands\/(?!index)|local\/))/.test(u)),
    [],
  );
  t.end();
});

t.test('a state run still loads what it needs', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const { urls } = loadedBy(t, ['local', 'state.sls', 'a', '--file-root', '$DIR', '--id', 'startup', '--out', 'yaml']);
  for (const want of ['packages/compiler/', 'packages/runtime/', 'packages/states/', 'node_modules/yaml/'])
    t.ok(
      urls.some((u) => u.includes(want)),
      want,
    );
  t.end();
});

/**
 * A compile checks states against the modules' signatures: the code of the 26 state modules, the
 * execution functions and the runtime are for runs (they were about a third of what a compile
 * loaded).
 */
t.test('a compile loads no state module code, execution function or runtime', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const args = ['local', 'state.show_low_sls', 'a,b', '--file-root', '$DIR', '--id', 'startup', '--out', 'json', '--grains', '$DIR/grains.json'];
  const { urls, stdout } = loadedBy(t, args);
  t.match(stdout, /"__id__": "b"/);
  t.ok(
    urls.some((u) => u.includes('packages/states/dist/signatures.js')),
    'the signatures were loaded',
  );
  t.same(
    urls.filter((u) => /packages\/(states\/dist\/modules|exec|runtime\/dist\/(?!state-run-args))\//.test(u)),
    [],
  );
  t.end();
});

t.test('a state run loads the state modules its states use and no other', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const { urls, stdout } = loadedBy(t, ['local', 'state.sls', 'a,b', '--file-root', '$DIR', '--id', 'startup', '--out', 'json']);
  t.match(stdout, /"result": true/);
  t.same(
    urls.filter((u) => u.includes('packages/states/dist/modules/')).map((u) => u.slice(u.indexOf('/modules/') + 9)),
    ['test.js'],
  );
  t.end();
});

/**
 * The YAML library is about 70 modules: a compile whose files and grains the fast YAML reader
 * takes whole (a JSON grains file, a flow collection over two lines) does without it.
 */
t.test('a compile of plain YAML with a JSON grains file loads no yaml library', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const args = ['local', 'state.show_low_sls', 'a,b', '--file-root', '$DIR', '--id', 'startup', '--out', 'json', '--grains', '$DIR/grains.json'];
  const { urls, stdout } = loadedBy(t, args);
  t.match(stdout, /"__id__": "b"/);
  t.match(stdout, /"x": \[\s*1,\s*2\s*\]/);
  t.ok(
    urls.some((u) => u.includes('packages/compiler/')),
    'the compiler was loaded',
  );
  t.same(
    urls.filter((u) => u.includes('node_modules/yaml/')),
    [],
  );
  t.end();
});

t.test('templates asking the host load the host-call answerer, not the minion agent', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const args = ['local', 'state.show_low_sls', 'c', '--file-root', '$DIR', '--id', 'startup', '--out', 'json', '--grains', '$DIR/grains.json'];
  const { urls, stdout } = loadedBy(t, args);
  t.match(stdout, /"__id__": "c"/);
  t.ok(
    urls.some((u) => u.includes('packages/minion/dist/host-calls.js')),
    'the answerer was loaded',
  );
  t.same(
    urls.filter((u) => u.includes('node_modules/yaml/') || /packages\/minion\/dist\/(index|agent|schedule)\.js/.test(u)),
    [],
  );
  t.end();
});

/** nunjucks is about 25 CommonJS files: the bundle holds them, so a template compile reads none of them. */
t.test('a template compile loads nunjucks from the bundle, not from its own files', { skip: !module.registerHooks && 'no module.registerHooks' }, (t) => {
  const args = ['local', 'state.show_low_sls', 'c', '--file-root', '$DIR', '--id', 'startup', '--out', 'json', '--grains', '$DIR/grains.json'];
  const { urls, files, stdout } = loadedBy(t, args);
  t.match(stdout, /"__id__": "c"/);
  t.ok(
    urls.some((u) => u.includes('node_modules/nunjucks/src/parser.js')),
    'nunjucks was loaded',
  );
  t.ok(
    files.some((u) => u.includes('/dist/bundle/')),
    'the bundle ran',
  );
  t.same(
    files.filter((u) => /node_modules\/(nunjucks|asap|a-sync-waterfall)\/.*\.js$/.test(u)),
    [],
  );
  t.end();
});

/** V8's compile cache of Brine's modules: written on the first run, read back on the next. */
t.test('the compile cache is written under XDG_CACHE_HOME/brine/v8 and read on the next run', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-cc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = () =>
    spawnSync(process.execPath, [BIN, 'local', 'test.ping', '--file-root', dir, '--id', 'cc'], {
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache'), NODE_DEBUG_NATIVE: 'COMPILE_CACHE', NODE_COMPILE_CACHE: '', BRINE_COMPILE_CACHE: '' },
    });
  const first = run();
  t.equal(first.status, 0, first.stderr);
  const v8 = path.join(dir, 'cache', 'brine', 'v8');
  const entries = readdirSync(v8, { recursive: true });
  t.ok(entries.length > 10, `cache entries written (${entries.length})`);
  t.equal(statSync(v8).mode & 0o077, 0, 'the cache folder is private');
  const second = run();
  t.equal(second.status, 0, second.stderr);
  t.match(second.stderr, /cache for (ESM )?\S+packages\/cli\/dist\/(bundle\/)?main\.js was accepted/, 'main.js came from the cache');
  t.end();
});

t.test('an unusable cache folder is skipped and the command still runs', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-cc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // a file where the folder should be (root can write anywhere else), and a folder others may write to
  writeFileSync(path.join(dir, 'file'), '');
  mkdirSync(path.join(dir, 'open', 'brine', 'v8'), { recursive: true });
  chmodSync(path.join(dir, 'open', 'brine', 'v8'), 0o777);
  for (const cache of [path.join(dir, 'file'), path.join(dir, 'open')]) {
    const r = spawnSync(process.execPath, [BIN, 'local', 'test.ping', '--file-root', dir, '--id', 'cc'], {
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: '' },
    });
    t.equal(r.status, 0, r.stderr);
    t.match(r.stdout, /True/);
    t.equal(r.stderr, '', cache);
  }
  t.same(readdirSync(path.join(dir, 'open', 'brine', 'v8')), [], 'nothing cached where others could plant code');
  t.end();
});
