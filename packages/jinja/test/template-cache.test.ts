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
