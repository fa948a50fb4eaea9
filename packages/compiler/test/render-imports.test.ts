/**
 * An imported YAML file is read and parsed once per compile however many SLS files import it,
 * and every import still gets a value of its own. Salt 3007 (checked with the oracle): each
 * `import_yaml` is a fresh parse, so `{% do d.a.update(...) %}` in one SLS shows neither in
 * another SLS nor in a second import of the same file in that SLS. Its answer for this tree:
 *   s0: d {a: {b: 1, leak: 1, list: [x, y, z]}, base: {port: 80}, web: {port: 80}},
 *       d2 {a: {b: 1, list: [x, y]}, base: {port: 80}, web: {port: 80}},
 *       data {a: {b: 1, list: [x, y]}, base: {port: 80}, web: {port: 1}}
 *   s1..s13: data {a: {b: 1, list: [x, y]}, base: {port: 80}, web: {port: 80}}
 */
import t from 'tap';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCacheStats } from '@brine/jinja';
import { compileHighstate, dirTree, type StateTree } from '../src/index.js';

const SLS = 14;

function formulaTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'brine-imports-'));
  mkdirSync(join(root, 'f'));
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n" + Array.from({ length: SLS }, (_, i) => `    - f.s${i}\n`).join(''));
  // a flow map and an anchor: the full YAML parser, not the fast path
  writeFileSync(join(root, 'f/defaults.yaml'), 'a: {b: 1, list: [x, y]}\nbase: &base {port: 80}\nweb: *base\n');
  writeFileSync(join(root, 'f/map.jinja'), "{% import_yaml 'f/defaults.yaml' as d %}{% set data = d %}\n");
  for (let i = 0; i < SLS; i++) {
    const body =
      i === 0
        ? // the first SLS changes what it imported, both ways
          "{% import_yaml 'f/defaults.yaml' as d %}{% do d.a.update({'leak': 1}) %}{% do d.a.list.append('z') %}" +
          "{% import_yaml 'f/defaults.yaml' as d2 %}{% from 'f/map.jinja' import data with context %}{% do data.web.update({'port': 1}) %}\n" +
          's0:\n  test.nop:\n    - d: {{ d|json }}\n    - d2: {{ d2|json }}\n    - data: {{ data|json }}\n'
        : `{% from 'f/map.jinja' import data with context %}\ns${i}:\n  test.nop:\n    - data: {{ data|json }}\n`;
    writeFileSync(join(root, `f/s${i}.sls`), body);
  }
  return root;
}

function counting(tree: StateTree, reads: Map<string, number>): StateTree {
  return {
    envs: () => tree.envs(),
    list: (env) => tree.list(env),
    read(env, path) {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return tree.read(env, path);
    },
  };
}

t.test('an imported file is read and parsed once per compile, each import its own copy', async (t) => {
  const root = formulaTree();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const reads = new Map<string, number>();
  const before = importCacheStats().parses;
  const c = compileHighstate({ tree: counting(dirTree({ base: [root] }), reads), minion: { id: 'm1', grains: { id: 'm1' } } });
  t.notOk(c.failed, JSON.stringify(c.diagnostics));
  t.equal(reads.get('f/defaults.yaml'), 1, 'defaults.yaml read once');
  t.equal(reads.get('f/map.jinja'), 1, 'map.jinja read once');
  t.equal(importCacheStats().parses - before, 1, 'defaults.yaml parsed once');

  const byId = Object.fromEntries(c.low.map((l) => [l.__id__, l]));
  const pristine = { a: { b: 1, list: ['x', 'y'] }, base: { port: 80 }, web: { port: 80 } };
  t.same(byId.s0.d, { ...pristine, a: { b: 1, list: ['x', 'y', 'z'], leak: 1 } }, 'the SLS sees its own change');
  t.same(byId.s0.d2, pristine, 'a second import in the same SLS does not');
  // Salt: an alias is a copy of its anchor after import_yaml (changing `web` leaves `base`), and
  // what map.jinja imports `with context` as `d` does not replace the importing SLS's `d`
  t.same(byId.s0.data, { ...pristine, web: { port: 1 } });
  for (let i = 1; i < SLS; i++) t.same(byId[`s${i}`].data, pristine, `s${i} sees the file as written`);

  // a second compile over a new tree reads the files again
  const again = new Map<string, number>();
  compileHighstate({ tree: counting(dirTree({ base: [root] }), again), minion: { id: 'm1', grains: { id: 'm1' } } });
  t.equal(again.get('f/defaults.yaml'), 1);
});

t.test('load_yaml and load_json of the same text: parsed once, each call its own value', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-loads-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - a\n    - b\n");
  const load = `{% set y = 'k: {x: 1}' | load_yaml %}{% set j = '{"k": {"x": 1}}' | load_json %}{% load_yaml as blk %}k: {x: 1}{% endload %}`;
  writeFileSync(
    join(root, 'a.sls'),
    `${load}{% do y.k.update({'y': 2}) %}{% do j.k.update({'y': 2}) %}{% do blk.k.update({'y': 2}) %}\na:\n  test.nop:\n    - v: {{ [y, j, blk]|json }}\n`,
  );
  writeFileSync(join(root, 'b.sls'), `${load}\nb:\n  test.nop:\n    - v: {{ [y, j, blk]|json }}\n`);
  const before = importCacheStats();
  const c = compileHighstate({ tree: dirTree({ base: [root] }), minion: { id: 'm1', grains: { id: 'm1' } } });
  t.notOk(c.failed, JSON.stringify(c.diagnostics));
  const after = importCacheStats();
  t.equal(after.parses - before.parses, 2, 'k: {x: 1} parsed once as YAML, once as JSON');
  t.equal(after.hits - before.hits, 4, 'the other four loads reuse them');
  const byId = Object.fromEntries(c.low.map((l) => [l.__id__, l]));
  const changed = { k: { x: 1, y: 2 } };
  t.same(byId.a.v, [changed, changed, changed]);
  t.same(byId.b.v, [{ k: { x: 1 } }, { k: { x: 1 } }, { k: { x: 1 } }]);
});
