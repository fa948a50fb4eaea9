/** The YAML fast path must agree with the full parser (Salt's YAML 1.1 rules) wherever it answers. */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectPositions, loadYaml } from '../src/render/index.js';
import { fastYaml } from '@brine/jinja';

const samples = [
  'a:\n  file.managed:\n    - name: /etc/x\n    - mode: 0644\n    - user: root\n    - require:\n      - pkg: p\n',
  'base:\n  \'*\':\n    - a\n    - b.c\n  "web*":\n    - web\n',
  'a:\n  pkg.installed: []\nb:\n  service:\n  - running\n  - enable: yes\n',
  'k:\n  - 1\n  - -2\n  - 1.5\n  - 1_000\n  - 0x1F\n  - 09\n  - 1e3\n  - 1.0e+3\n  - 2024-01-02\n  - 1:30\n  - ~\n  - null\n  - Off\n  - y\n  - .inf\n',
  "k:\n  - 'it''s'\n  - \"q\\\"x\\n\"\n  - plain # comment\n  - a#b\n  - /path/to\n  - -flag\n  - 'x' # c\n",
  'k: v\nl:\n- a\n- b\nm:\n  - n: 1\n    o: 2\n  -   p: 3\n',
  'a:\n  b: [1, 2]\n  c: {d: 1}\n',
  'a: &x\n  b: 1\nc: *x\n',
  'a: |\n  text\n  more\n',
  'a: b\na: c\n',
  'a:\n  b: multi\n    line\n',
  'yes: 1\n',
  '- a\n- b\n',
  '',
  '# only a comment\n',
  'a:\n\tb: 1\n',
  'a: "x: y"\nb: x:y\nc: "http://h:80/"\n',
  '"key with: colon": 1\n',
  // map files: a document start, empty flow collections, a document end
  '# vim: ft=yaml\n---\nDebian: {}\nRedHat: {}  # none\nlist: []\nseq:\n  - {}\n  - []\n...\n# end\n',
  '--- # defaults\na: 1\n',
  '---\na: 1\n---\nb: 2\n',
  'a: 1\n...\nb: 2\n',
  'a: {} x\n',
  'a: []]\n',
];
// flow collections on one line, as `| json` and `| yaml` write them into SLS files
const FLOW_SHAPES = [
  'a:\n  test.nop:\n    - v: {"k": {"x": 1, "y": [1, 2.5, "s", true, null]}, "139": "n", "a": "b:c"}\n    - w: [a, b c, \'it\'\'s\', -1, yes, ~, [], {}, ]\n',
  'a:\n  pkg.installed:\n    - {name: vim, version: 1.2}\n    - pkgs: ["x", "y"]  # c\n',
  '- [1, [2, [3]]]\n- {a: {b: {c: d}}, e: }\n',
];
const FLOW_GIVE_UP = [
  'a: {b: 1, b: 2}\n',
  'a: [b: c]\n',
  'a: {b: 1\n',
  'a: [*x]\n',
  'a: {b}\n',
  'a: [x #c]\n',
  'a: ["\\u00e9"]\n',
  'a: [1] x\n',
  'a: {1: x}\n',
];
const MAP_FILE_SHAPES = ['# vim: ft=yaml\n---\nDebian: {}\nRedHat: {}  # none\nlist: []\nseq:\n  - {}\n  - []\n...\n# end\n', '--- # defaults\na: 1\n'];

t.test('fast path agrees with the full parser', async (t) => {
  const root = join(fileURLToPath(new URL('.', import.meta.url)), 'golden', 'render');
  const more: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(sls|yaml)$/.test(n)) more.push(readFileSync(p, 'utf8').replace(/^#!.*/, ''));
    }
  };
  walk(root);
  let fastCount = 0;
  for (const text of [...samples, ...FLOW_SHAPES, ...FLOW_GIVE_UP, ...more]) {
    const full = loadYaml(text, { fast: false });
    const quick = fastYaml(text);
    if (!quick) continue;
    fastCount++;
    t.notOk(full.error, `full parser accepts what the fast path accepts: ${JSON.stringify(text)}`);
    t.same(quick.value, full.value, JSON.stringify(text));
    t.same(JSON.stringify(quick.value), JSON.stringify(full.value), `key order: ${JSON.stringify(text)}`);
    const res = loadYaml(text);
    t.same(collectPositions(res, 'f'), collectPositions(full, 'f'), `positions: ${JSON.stringify(text)}`);
  }
  t.ok(fastCount >= 8, `fast path used for the common shapes (${fastCount})`);
  for (const text of [...MAP_FILE_SHAPES, ...FLOW_SHAPES]) t.ok(fastYaml(text), `fast path: ${JSON.stringify(text)}`);
  for (const text of FLOW_GIVE_UP) t.equal(fastYaml(text), undefined, `falls back: ${JSON.stringify(text)}`);
  for (const text of [
    '---\na: 1\n---\nb: 2\n',
    'a: 1\n...\nb: 2\n',
    'a: {} x\n',
    'a: []]\n',
    'a: &x\n  b: 1\nc: *x\n',
    'a: b\na: c\n',
    'a:\n  b: multi\n    line\n',
    'yes: 1\n',
    'a:\n\tb: 1\n',
  ]) {
    t.equal(fastYaml(text), undefined, `falls back: ${JSON.stringify(text)}`);
  }
});
