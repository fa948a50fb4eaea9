import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { copyInstall } from './helpers/install-copy.js';
import { REPO } from './support/brine-cli.js';

// The CLI's bundle (scripts/bundle.mjs) is made and run in a copy of Brine's built code, so that
// making it stale here never disturbs the tests running the repository's own `brine` meanwhile.

let dir = '';
t.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'brine-bundle-'));
  // another version than the repository's: `--version` shows which package.json was read
  const version = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
  copyInstall(dir, {}, { scripts: ['bundle.mjs', 'bundle-inside.mjs'], packageJson: JSON.stringify({ ...version, version: '9.8.7' }) });
});
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the copy's `brine`, telling on stderr (`loaded URL`) each of Brine's modules Node loads. */
function brine(args: string[], env: NodeJS.ProcessEnv = {}) {
  const hook =
    'data:text/javascript,import{registerHooks}from"node:module";' +
    'registerHooks({load(u,c,n){if(u.includes("/packages/")&&!u.includes("/node_modules/"))process._rawDebug("loaded "+u);return n(u,c)}})';
  const r = spawnSync(process.execPath, [`--import=${hook}`, path.join(dir, 'packages/cli/dist/bin.js'), ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, NO_COLOR: '1', BRINE_COMPILE_CACHE: 'off', ...env },
    encoding: 'utf8',
  });
  const loaded = r.stderr.split('\n').filter((l) => l.startsWith('loaded '));
  const stderr = r.stderr
    .split('\n')
    .filter((l) => !l.startsWith('loaded '))
    .join('\n');
  return { code: r.status, stdout: r.stdout, stderr, loaded };
}

t.test('a fresh bundle is what runs: a few files, and what they read is found from there', async (t) => {
  const v = brine(['--version']);
  t.equal(v.code, 0, v.stderr);
  t.match(v.stdout, /^brine 9\.8\.7 \(node /, "the install's package.json, found from the bundle");
  t.equal(v.stderr, '', 'no warning');
  t.ok(v.loaded.some((l) => l.endsWith('/packages/cli/dist/bundle/main.js')));
  t.notOk(
    v.loaded.some((l) => /\/packages\/(?!cli\/dist\/(bin|node-check|bundle-check)\.js|core\/dist\/host\/cache-dir\.js|cli\/dist\/bundle\/)/.test(l)),
    'no separate module of Brine besides bin.js and what it imports itself',
  );
  // a Jinja template (nunjucks, packages/jinja's own dependency) and the template cache
  const tree = mkdtempSync(path.join(dir, 'tree-'));
  const cache = mkdtempSync(path.join(dir, 'cache-'));
  writeFileSync(path.join(tree, 'top.sls'), "base:\n  '*':\n    - one\n");
  writeFileSync(path.join(tree, 'one.sls'), "{% for n in ['a', 'b'] %}\nhello-{{ n }}:\n  test.nop: []\n{% endfor %}\n");
  const low = brine(['local', 'state.show_lowstate', '--file-root', tree, '--id', 'm', '--out', 'json'], { BRINE_TEMPLATE_CACHE: cache });
  t.equal(low.code, 0, low.stderr);
  t.same(
    (JSON.parse(low.stdout) as { local: Array<{ name: string }> }).local.map((s) => s.name),
    ['hello-a', 'hello-b'],
  );
  t.equal(low.stderr, '');
  t.ok(readdirSync(cache).length > 0, 'the compiled template is cached (the dialect files that key it are found)');
  const modules = brine(['local', 'state.show_lowstate', '--file-root', tree, '--id', 'm', '--out', 'json'], { BRINE_BUNDLE: 'off' });
  t.equal(modules.stdout, low.stdout, 'the same answer from the separate modules');
  // (a compile loads no state module code any more: about 125 separate modules, the bundle about 35 files)
  t.ok(low.loaded.length * 3 < modules.loaded.length, `${low.loaded.length} of Brine's files loaded, not ${modules.loaded.length}`);
});

t.test('a compiled module newer than the bundle: the modules run, with one warning line', async (t) => {
  const index = path.join(dir, 'packages/core/dist/index.js');
  const later = new Date(Date.now() + 5_000);
  utimesSync(index, later, later);
  const v = brine(['--version']);
  t.equal(v.code, 0);
  t.match(v.stdout, /^brine 9\.8\.7 /);
  t.match(v.stderr, /^brine: warning: the CLI's bundle is stale \(run `npm run build`\); running the separate modules\n$/);
  t.notOk(
    v.loaded.some((l) => l.includes('/bundle/')),
    'nothing of the bundle',
  );
  t.ok(v.loaded.some((l) => l.endsWith('/packages/cli/dist/main.js')));
  const off = brine(['--version'], { BRINE_BUNDLE: 'off' });
  t.equal(off.stderr, '', 'BRINE_BUNDLE=off: the modules, without a word');
});

t.test('no bundle (only tsc -b ran): the modules, with one warning line', async (t) => {
  rmSync(path.join(dir, 'packages/cli/dist/bundle'), { recursive: true });
  const ping = brine(['local', 'test.ping', '--id', 'm']);
  t.equal(ping.code, 0);
  t.match(ping.stdout, /^local:\n\s+True/);
  t.match(ping.stderr, /^brine: warning: the CLI's bundle is missing \(run `npm run build`\); running the separate modules\n$/);
});

t.test('the list of what goes inside is part of how the bundle is made: a change to it makes the bundle again', async (t) => {
  const make = () => spawnSync(process.execPath, ['scripts/bundle.mjs'], { cwd: dir, encoding: 'utf8' });
  const first = make();
  t.equal(first.status, 0, first.stderr);
  t.match(make().stdout, /up to date/, 'made once, then up to date');
  const list = path.join(dir, 'scripts/bundle-inside.mjs');
  writeFileSync(list, `${readFileSync(list, 'utf8')}// another line\n`);
  const again = make();
  t.equal(again.status, 0, again.stderr);
  t.notMatch(again.stdout, /up to date/, 'made again after the list changed');
});
