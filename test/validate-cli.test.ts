import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { brine, REPO } from './support/brine-cli.js';

/**
 * `brine validate` and params files through the real CLI: the seed's main example prints the
 * seed's sections, params files include and override each other in the documented order, an
 * include cycle and a missing `params['k']` fail naming the files (and line).
 */
const SEED_MAIN = join(REPO, 'packages/compiler/test/golden/validate/seed-main');

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'brine-validate-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

t.test('brine validate: the seed example, byte for byte where the seed gives the output', async (t) => {
  const run = await brine(['validate', 'test', '--file-root', join(SEED_MAIN, 'tree'), '--id', 'm1']);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout, readFileSync(join(SEED_MAIN, 'expected.json'), 'utf8'));
  const printed = JSON.parse(run.stdout) as Record<string, unknown>;
  const seed = JSON.parse(readFileSync(join(SEED_MAIN, 'seed.json'), 'utf8')) as Record<string, unknown>;
  for (const k of ['high', 'meta', 'parameters', 'warnings']) t.equal(JSON.stringify(printed[k], null, 4), JSON.stringify(seed[k], null, 4), k);
  // Idem's dictionary spelling of a state declaration is read, with a warning naming file and line.
  t.match(run.stderr, /test\.sls:4:5: warning BRINE_ERR_VALIDATE_DICT_DECLARATION/);
});

t.test('brine validate: META documents params, includes are followed, yaml output', async (t) => {
  const dir = tree({
    'web/init.sls': [
      'include:',
      '  - .db',
      'META:',
      '  params:',
      '    port: {description: the port}',
      'nginx:',
      '  pkg.installed:',
      "    - version: {{ params.get('nginx', {}).get('version', '1.24') }}",
      'listen:',
      '  file.managed:',
      '    - name: /etc/nginx/listen.conf',
      "    - contents: listen {{ params.get('port', 80) }}",
      '',
    ].join('\n'),
    'web/db.sls': [
      "{% if params.get('with_db') %}",
      'db:',
      '  META:',
      '    params:',
      '      db: {properties: {host: {}}}',
      '  pkg.installed:',
      "    - name: {{ params['db'].get('host') }}-{{ params['db'].get('user', 'root') }}",
      '{% endif %}',
      '',
    ].join('\n'),
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = await brine(['validate', 'web', '--file-root', dir, '--id', 'm1', '--out', 'yaml']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /contents: listen \{\{ params\.get\('port', 80\) \}\}/);
  const json = await brine(['validate', 'web', '--file-root', dir, '--id', 'm1']);
  const report = JSON.parse(json.stdout) as {
    parameters: { GLOBAL: unknown; ID_DECS: Record<string, unknown> };
    warnings: { GLOBAL: string[]; ID_DECS: Record<string, unknown> };
    low: Array<Record<string, unknown>>;
  };
  t.same(report.parameters.GLOBAL, { nginx: { version: '1.24' }, port: 80, with_db: '', db: { host: '', user: 'root' } });
  t.same(report.parameters.ID_DECS, {
    'web.nginx': { nginx: { version: '1.24' } },
    'web.listen': { port: 80 },
    'web.db.db': { db: { host: '', user: 'root' } },
  });
  t.same(report.warnings.ID_DECS, {
    'web.nginx': { params_meta_missing: ['nginx'] },
    'web.db.db': { params_meta_missing: ['db.user'] },
  });
  t.same(report.warnings.GLOBAL, ["parameter 'with_db' is read by the templates but reaches no state (used in a condition, a loop bound or a filter?)"]);
  t.equal(report.low.find((c) => c.__id__ === 'db')?.name, "{{ params['db'].get('host') }}-{{ params['db'].get('user', 'root') }}");
});

t.test('brine validate: a template that cannot render with stand-ins is a warning, and usage errors', async (t) => {
  const dir = tree({
    'calc.sls': "n:\n  test.nop:\n    - count: {{ '%d' % params.get('n') }}\n",
    'lost.sls': "l:\n  test.nop:\n    - count: {{ params.get('n') | int }}\n",
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = await brine(['validate', 'calc', '--file-root', dir, '--id', 'm1']);
  t.equal(run.code, 1);
  const report = JSON.parse(run.stdout) as { warnings: { GLOBAL: string[] } };
  t.match(report.warnings.GLOBAL.join('\n'), /SLS 'calc' does not render with recording params/);
  t.match(run.stderr, /calc\.sls:3:\d+: error BRINE_ERR_COMPILE_TEMPLATE/);
  // A filter that turns the stand-in into something else loses the trace: a warning, exit 0.
  const lost = await brine(['validate', 'lost', '--file-root', dir, '--id', 'm1']);
  t.equal(lost.code, 0, lost.stderr);
  t.same((JSON.parse(lost.stdout) as { warnings: { GLOBAL: string[] } }).warnings.GLOBAL, [
    "parameter 'n' is read by the templates but reaches no state (used in a condition, a loop bound or a filter?)",
  ]);
  const none = await brine(['validate', '--file-root', dir]);
  t.equal(none.code, 1);
  t.match(none.stderr, /BRINE_ERR_CLI_USAGE: no SLS given/);
});

t.test('params files: includes, override order, command-line params, cycles, missing keys', async (t) => {
  const dir = tree({
    'srv/show.sls': [
      'show:',
      '  test.show_notification:',
      "    - text: \"{{ params['db']['host'] }}:{{ params.db.port }} {{ params.get('env', 'none') }} {{ params.get('tags') }}\"",
      '',
    ].join('\n'),
    'srv/strict.sls': "s:\n  test.nop:\n    - x: 1\n    - y: {{ params['db']['user'] }}\n",
    'params/common.yaml': 'db: {host: common, port: 5432}\ntags: [a, b]\nenv: dev\n',
    'params/site/prod.yaml': 'include: ../common.yaml\ndb: {host: prod}\nenv: prod\n',
    'params/override.yaml': 'tags: [c]\n',
    'params/loop-a.yaml': 'include: [loop-b.yaml]\n',
    'params/loop-b.yaml': 'include: loop-a.yaml\n',
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const text = async (...args: string[]) => {
    const r = await brine(['local', 'state.show_low_sls', 'show', '--file-root', 'srv', '--id', 'm1', '--out', 'json', ...args], { cwd: dir });
    t.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { local: Array<Record<string, unknown>> }).local[0]!.text as string;
  };
  // The included file first, the including file over it (dicts merged key by key).
  t.equal(await text('--params', 'params/site/prod.yaml'), "prod:5432 prod ['a', 'b']");
  // Later --params files win; lists are replaced whole.
  t.equal(await text('--params', 'params/site/prod.yaml', '--params', 'params/override.yaml'), "prod:5432 prod ['c']");
  t.equal(await text('--params', 'params/override.yaml', '--params', 'params/common.yaml'), "common:5432 dev ['a', 'b']");
  // params= on the command line comes last.
  t.equal(await text('--params', 'params/site/prod.yaml', 'params={"db": {"port": 6432}}'), "prod:6432 prod ['a', 'b']");

  const cycle = await brine(['local', 'state.show_low_sls', 'show', '--file-root', 'srv', '--params', 'params/loop-a.yaml'], { cwd: dir });
  t.equal(cycle.code, 1);
  t.match(cycle.stderr, /BRINE_ERR_CLI_BAD_FILE: .*include cycle: params\/loop-a\.yaml -> params\/loop-b\.yaml -> params\/loop-a\.yaml/);

  const missing = await brine(['local', 'state.show_low_sls', 'strict', '--file-root', 'srv', '--params', 'params/common.yaml'], { cwd: dir });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /srv\/strict\.sls:4:\d+: error BRINE_ERR_COMPILE_TEMPLATE: template error: params\['db'\] has no key 'user'/);

  const absent = await brine(['local', 'state.show_low_sls', 'show', '--file-root', 'srv', '--params', 'params/nope.yaml'], { cwd: dir });
  t.equal(absent.code, 1);
  t.match(absent.stderr, /cannot read params file params\/nope\.yaml: no such file/);
});
