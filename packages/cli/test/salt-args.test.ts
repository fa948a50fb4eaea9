/** Arguments read as salt-call reads them: a plain name skips the YAML parser and reads the same. */
import t from 'tap';
import { yamlifyArg, yamlifyThroughYaml } from '../src/salt-args.js';

const words = [
  'a',
  'a,b',
  'apache.config',
  'web/init',
  'x-y_z',
  'None',
  'y',
  'n',
  'Y',
  'yes',
  'No',
  'on',
  'OFF',
  'true',
  'False',
  'null',
  'NULL',
  'Null',
  'nan',
  'inf',
  '_',
  'a1',
  'e3',
  'E',
  'e-3',
  'E12',
  'e3x',
  'b.2',
  'a,',
  'a,,b',
  'a/b/c.sls',
];
for (const w of words) t.same(yamlifyArg(w), w === '' ? '' : yamlifyThroughYaml(w), w);
t.same(yamlifyArg('80'), 80);
t.same(yamlifyArg('{"a": 1}'), { a: 1 });

// `test=True` (on nearly every dry run) read without loading the yaml package: ~20 ms of a start.
// (A child process: tap itself has loaded yaml here.)
t.test('booleans without the yaml package', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const root = new URL('../../../', import.meta.url).pathname;
  const script = [
    "import Module from 'node:module';",
    "const { parseSaltArgs } = await import('./packages/cli/src/salt-args.ts');",
    "const words = ['test=True', 'test=true', 'test=TRUE', 'x=False', 'x=false', 'x=FALSE', 'a', 'web.init'];",
    'const parsed = parseSaltArgs(words);',
    'const yaml = Object.keys(Module._cache).filter((k) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]/.test(k)).length;',
    'console.log(JSON.stringify({ parsed, yaml }));',
  ].join('\n');
  const r = spawnSync(process.execPath, ['--import=./scripts/tap-ts-hooks.mjs', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const { parsed, yaml } = JSON.parse(r.stdout) as { parsed: unknown; yaml: number };
  t.same(parsed, { args: ['a', 'web.init'], kwargs: { test: true, x: false } });
  t.equal(yaml, 0, 'no module of the yaml package loaded');
  for (const w of ['True', 'true', 'TRUE', 'False', 'false', 'FALSE']) t.equal(yamlifyArg(w), yamlifyThroughYaml(w), w);
});
