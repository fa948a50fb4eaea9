import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';

// The cache directory is read once per process, so it is set before the first template.
const dir = mkdtempSync(join(tmpdir(), 'brine-tpl-cache-'));
process.env.BRINE_TEMPLATE_CACHE = dir;
const { readCompiled, writeCompiled } = await import('../src/template-cache.js');
const { renderTemplateString } = await import('../src/index.js');
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('compiled templates land on disk, keyed by name and text', async (t) => {
  const r = renderTemplateString('{{ 1 + 2 }}', { name: 'cache-a.jinja' });
  t.same(r, { ok: true, text: '3' });
  const sub = readdirSync(dir);
  t.equal(sub.length, 1, 'one folder per dialect version');
  t.equal(readdirSync(join(dir, sub[0]!)).length, 1);
  t.type(readCompiled('cache-a.jinja', '{{ 1 + 2 }}'), 'string');
  t.equal(readCompiled('cache-a.jinja', '{{ 1 + 3 }}'), undefined, 'other text, other entry');
  t.equal(readCompiled('cache-b.jinja', '{{ 1 + 2 }}'), undefined, 'other name, other entry');
});

t.test('an entry found on disk is what runs', async (t) => {
  // Plant compiled code for a template nobody compiled: rendering it must use the planted code.
  const planted = readCompiled('cache-a.jinja', '{{ 1 + 2 }}')!;
  writeCompiled('cache-c.jinja', '{{ "never compiled" }}', planted);
  t.same(renderTemplateString('{{ "never compiled" }}', { name: 'cache-c.jinja' }), { ok: true, text: '3' });
});

t.test('a cache folder others can write to is not trusted (its code would run)', async (t) => {
  const { chmodSync, mkdirSync } = await import('node:fs');
  const { trusted } = await import('@brine/core');
  const open = join(dir, 'world-writable');
  mkdirSync(open);
  chmodSync(open, 0o777);
  t.notOk(trusted(open));
  chmodSync(open, 0o775);
  t.notOk(trusted(open), 'group-writable is refused too');
  chmodSync(open, 0o755);
  t.ok(trusted(open));
});

t.test("V8's code cache of a template's code lies beside its entry once the process exits, and serves the next", async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { readFileSync, writeFileSync } = await import('node:fs');
  const own = mkdtempSync(join(tmpdir(), 'brine-tpl-v8-'));
  t.teardown(() => rmSync(own, { recursive: true, force: true }));
  const index = new URL('../src/index.ts', import.meta.url).href;
  const script = `const { renderTemplateString } = await import(${JSON.stringify(index)});
    const r = renderTemplateString('{% macro m(x) %}[{{ x * 2 }}]{% endmacro %}{% for i in range(3) %}{{ m(i) }}{% endfor %}', { name: 'v8.jinja' });
    process.stdout.write(JSON.stringify(r));`;
  const run = (flags: string[] = []) =>
    spawnSync(process.execPath, [...process.execArgv, ...flags, '--input-type=module', '-e', script], {
      env: { ...process.env, BRINE_TEMPLATE_CACHE: own },
      encoding: 'utf8',
    });
  const first = run();
  t.equal(first.status, 0, first.stderr);
  t.same(JSON.parse(first.stdout), { ok: true, text: '[0][2][4]' });
  const [sub] = readdirSync(own);
  const files = readdirSync(join(own, sub!)).sort();
  t.equal(files.length, 2, files.join(' '));
  t.match(files[1], new RegExp(`^${files[0]!.replace('.', '\\.')}\\.[0-9a-f]{8}\\.v8$`), 'the code cache is named after its entry');
  const v8 = join(own, sub!, files[1]!);
  const made = readFileSync(v8);
  t.same(JSON.parse(run().stdout), { ok: true, text: '[0][2][4]' }, 'rendered from the code cache');
  t.same(readFileSync(v8), made, 'an accepted code cache is not written again');
  // a process started another way (flags, snapshot) has its own: neither rewrites the other's
  const other = run(['--stack-size=900']);
  t.same(JSON.parse(other.stdout), { ok: true, text: '[0][2][4]' }, other.stderr);
  t.equal(readdirSync(join(own, sub!)).length, 3);
  t.same(readFileSync(v8), made);
  // one V8 refuses (other bytes): the template renders all the same, and the cache is made anew
  const junk = Buffer.alloc(made.length, 7);
  writeFileSync(v8, junk);
  const refused = run();
  t.same(JSON.parse(refused.stdout), { ok: true, text: '[0][2][4]' }, refused.stderr);
  t.notSame(readFileSync(v8), junk, 'made anew');
});
