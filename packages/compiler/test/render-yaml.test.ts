/** The YAML fast path must agree with the full parser (Salt's YAML 1.1 rules) wherever it answers. */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectPositions, loadYaml } from '../src/render/index.js';
import { fastYaml } from '@brine/jinja';
import { keysOf } from '@brine/core';

/** Every map's keys in the order keysOf gives (document order, integer-like keys included). */
function documentOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(documentOrder);
  if (v === null || typeof v !== 'object') return v;
  return keysOf(v).map((k) => [k, documentOrder((v as Record<string, unknown>)[k])]);
}

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
  // a colon in text that is not base 60
  'a: 127.0.0.1:8500\nb: ::1/128\nc: 2001:db8::1/64 2001:db8::1\nd: 16:27:ac:a5\ne: [10.0.0.1:80, ::1]\n',
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
// flow collections over several lines, as Brine's `| yaml` (PyYAML's dump) wraps them at 80
// columns; a document that is one flow collection or one scalar (`load_yaml` of a dumped value);
// a scalar on the line below its key
const MULTI_LINE_SHAPES = [
  "a:\n  - context:\n      map: {values: {arch: amd64, bin_dir: /usr/local/bin/, config: {bind_addr: 0.0.0.0,\n          bootstrap_expect: 3}}, x: [1,\n          2, 's t']}\n  - b: 1\n",
  "\n{merge_lists: false, merge_strategy: null, values: {arch: amd64,\n    config: {a: 1, '139': n}}}",
  "\n\n[{option: null, query: map_jinja.yaml, query_delimiter: ':', query_method: config.get,\n    type: Y, value: []}, {option: G,\n  query: x}]",
  'a:\n  - [1,\n    2]\n  - {b: [x,\n     y], c: d}\n',
  'k: {a: 1,\n  b: 2}  # c\nl: 3\n',
  '/srv/formulas',
  'git@github.com:username\n',
  'true\n',
  "'quoted'\n",
  '{branch: master, identity: /path/to/.ssh/id_rsa, remote: origin, rev: master,\n  user: username}',
  'a:\n  - group:\n      root\n  - b: 1\nc:\n  x\n',
  // continued left of the block's indentation, as PyYAML reads it (the full loader moves them)
  'a:\n  x: {b: 1,\nc: 2}\n',
  'a:\n  - [1,\n  2]\n',
  'a:\n  - context:\n      map: {values: {arch: amd64,\n    config: {x: 1}}, y: 2}\n  - b: 1\n',
  'i:\n  pkg.installed:\n    - {name: vim,\n   version: 1.2}\n    - {x: 1,\n        y: 2}\n',
  // scalars folded over lines, as PyYAML's dump wraps long ones
  "a: {b: foo\n  bar  baz, c: 'it''s\n    long  ', d: [x\n y, 'p\n q'], e: 1\n  2}\n",
  'a: {b: c,\n  d:\n    e}\n',
  'a: {b: 1,\n\n  c: 2}\n',
  // blank lines inside them (keys in a dumped pillar): a line break each
  "k: {key: '-----BEGIN KEY-----\n\n    ...........\n\n    -----END KEY-----\n\n    ', pub: 'x\n  \n\n  y', p: foo\n\n  bar,\n\n  q: 1}\n",
  'i: {pkg.installed: [{name: vim,\n  version: 1.2}], file.managed: [{name: /x,\n mode: 644}]}\n',
];
const COLON_TEXT = 'a: 127.0.0.1:8500\nb: ::1/128\nc: 2001:db8::1/64 2001:db8::1\nd: 16:27:ac:a5\ne: [10.0.0.1:80, ::1]\n';
// literal block scalars (pillar files hold keys and banners in them)
const BLOCK_SHAPES = [
  'a: |\n  line one\n  # not a comment\n\n  -----BEGIN KEY-----\n    indented  \nb: 1\n',
  'a:\n  - |-\n    x\n    y\n\n  - |+\n    z\n\n\n  - c\nd: |\n  last\n\n\n',
  'k:\n  ConfigBanner: |\n    # Alternative banner\n    text\n# a comment ends it\n  Port: 22\n',
  '- |\n  t\n- u\n',
  'a:\n  - k: |\n      v\n    l: 1\n',
  // folded ones: a line break between lines is a space, a blank line a line break
  'a: >\n  one\n  two  \n\n  three\n\n\nb: >-\n  x\n  y\nc:\n  - name: >+\n      p\n      q\n\n  - >\n\n    lead\n',
  // integer keys (maps of architectures, ports)
  'arch:\n  386: i386\n  amd64: x86_64\n  -1: neg\n  0: zero\nports:\n  80: http\n  22: ssh\n',
];
const BLOCK_GIVE_UP = [
  'a: |\n\n    \n  x\n',
  'a: |\n  x\n    \n  y\n',
  'a:\n  0644: x\n',
  'a:\n  1_000: x\n',
  'a:\n  +5: x\n',
  'a: |2\n   x\n',
  'a: | # c\n  x\n',
  'a: |\nb: 1\n',
  '---x: 1\n',
  'a:\n  ---x: 1\n',
];
const FLOW_GIVE_UP = [
  'a: {b: 1,\n  # c\n  c: 2}\n',
  'a: {b: 1}\n    ...\n',
  'a: {b: 1, # c\n  c: 2}\n',
  'a: {b: 1}\n  c: 2\n',
  'a:\n    root\n  b: 1\n',
  '[a, b]: c\n',
  'a: {b: 1, b: 2}\n',
  'a: [b: c]\n',
  'a: {b: 1\n',
  'a: [*x]\n',
  'a: {b}\n',
  'a: [x #c]\n',
  'a: [1] x\n',
  'a: {1: x}\n',
];
// multi-line scalars at block level, escapes, anchors, CRLF and tabs (session 7): each folded as
// PyYAML folds it, every one compared with the full parser below
const LINES_SHAPES = [
  // plain scalars over lines: a line break is a space, blank lines are line breaks, spaces around trimmed
  'a: one\n  two  \n\n  three\n\n\n   four\nb: 1\n',
  '- x\n  y\n- z\n',
  'a:\n  - name: deb [ arch=amd64 signed-by=/k.gpg ]\n      https://repo.example.com/debian bookworm main\n  - file: /x\n',
  'k:\n  v\n  w\nl:\n  - b:\n      root\n      more\n',
  'a: 1\n  2\nb: yes\n  no\nc: 0644\n  x\n',
  'a:\n  b: multi\n    line\n',
  'foo\nbar\n',
  // single-quoted over lines
  "a: 'deb [signed-by=/k.pgp arch=amd64]\n              https://packages.example.com/deb stable main'\nb: 1\n",
  "a: 'x\n\n  y  \n   z'\n",
  "- 'it''s\n  long'\n- ''\n",
  // double-quoted: escapes, escaped line breaks and spaces, folding, continuation left of the parent
  'a: "x\\\n  \\ y\\n"\n',
  'a: "t\\tab\\x41\\u00e9\\U0001F600\\0\\a\\b\\v\\f\\r\\e\\/\\" \\\\"\n',
  'a: "trailing  \n  next\n\n  para\n\n\n  end"\n',
  'a: "esc space\\ \n  x"\nb: "\\t\n  y"\nc: "tab\t\n  z"\n',
  'a:\n    - contents: "/var/log/x{\\n\\\n  \\  weekly\\n\\\n  \\ }\\n"\n    - b: 1\n',
  'a: {b: "q\n  r", c: "x\\u00e9", d: "l\\\n    m"}\n',
  'a: {b: "q\n\n  r"}\n',
  'a: ["\\u00e9"]\n',
  "'^[.\\\\/]+([Ww][Ee][Bb])[.\\\\/]':\n  Require: false\n",
  // folded block scalars: more-indented lines keep their line breaks; a block scalar ending the text
  'a: >\n  folded\n    more\n  text\n',
  'a: >\n  one\n\n    more\n    again\n\n  two\n  three\nb: >-\n  x\n\n\n    y\n  z\n',
  'a: |\n  x',
  'a: |+\n  x',
  'a: |-\n  x\n  y',
  // kept final blank lines at the end of the text: the text after the last line break is no line
  'a: |+\n  x\n\n',
  '- >+\n   x\n\n\n',
  'a: >\n  x\n  y',
  'a:\n  - text: |\n      Note: x                \n',
  // Windows line endings
  'a: 1\r\nb:\r\n  - x\r\n  - "y\r\n    z"\r\n  - \'p\r\n\r\n    q\'\r\nc: |\r\n  l1\r\n\r\n  l2\r\nd: >\r\n  f1\r\n  f2\r\ne: m1\r\n  m2\r\n',
  // tabs in text (not in indentation)
  'a: \'x\ty\'\nb: "t\tu"\nc: |\n  p\tq\nd: b\t\ne: \tf\nf: {g: "h\ti"}\n',
  // scalar anchors and aliases (PyYAML's names: letters, digits, - and _)
  'a: &x 1\nb: *x\nc: &y-z "s"\nd:\n  - *y-z\n  - &x two\n  - *x  # c\ne: &o 0644\nf: *o\n',
  "docker:\n  c:\n    image: &img 'registry:latest'\n    name: &dvc 'data'\n    command: echo *dvc data\n    volumes:\n      - &path '/registry'\n  d:\n    image: *img\n    from:\n      - *dvc\n    env:\n      P: *path\n",
  // anchored collections, aliases and merge keys below the maps positions are kept for (openvpn's pillar)
  'p:\n  q:\n    r:\n      s:\n        base: &b\n          x: 1\n          y: [1, 2]\n          z: &inner\n            k: v\n        m1:\n          y: before\n          <<: *b\n          x: after\n        m2:\n          <<: *b  # c\n        use: *inner\n        l:\n          - &li\n            a: 1\n          - *li\n        sq: &sq\n          - 1\n        sq2: *sq\n        f: &f {a: 1}\n        g: *f\n',
  // an anchor of the same name begun inside another one is the one an alias names
  'p:\n  q:\n    r:\n      s:\n        n0:\n          u: &a\n            u: &a ~\n            y: *a\n          z: *a\n',
];
// what stays the full parser's
const LINES_GIVE_UP = [
  'p:\n  q:\n    r:\n      s:\n        a: &a\n          x: 1\n        b:\n          <<: [*a]\n',
  'p:\n  q:\n    r:\n      s:\n        a: &a\n          x: &c [1]\n          y: *c\n        b:\n          <<: *a\n',
  'p:\n  q:\n    r:\n      s:\n        a: &a\n          x: *a\n',
  'p:\n  q:\n    r:\n      s:\n        a: &a\n          10: x\n        b:\n          <<: *a\n',
  'p:\n  q:\n    r:\n      s:\n        a: &a\n          x: 1\n        b:\n          x: 2\n          <<: *a\n          x: 3\n',

  'a:\n\tb: 1\n',
  'a: x\ty\n',
  'c: |\n  p\n  \tr\n',
  "g:\t'h'\n",
  'a: "x\u0001"\n',
  'a: &x\n  b: 1\nc: *x\n',
  'a: &x {b: 1}\nc:\n  <<: *x\n',
  'a: *u\n',
  'a: "x" y\n',
  'a: x\r\n  y\rz\n',
  'a: |2\n   x\n',
  'a: one\n  # c\n  two\n',
  'a: one\n  b: two\n',
  'a:\n    root\n  b: 1\n',
  'a: "\\N\\_"\n',
  'a: "\\ud800"\n',
  'a: "x\\\n\n  y"\n',
  'a:\u00a0b\n',
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
  for (const text of [
    ...samples,
    ...FLOW_SHAPES,
    ...MULTI_LINE_SHAPES,
    ...BLOCK_SHAPES,
    ...LINES_SHAPES,
    ...FLOW_GIVE_UP,
    ...BLOCK_GIVE_UP,
    ...LINES_GIVE_UP,
    ...more,
  ]) {
    const full = loadYaml(text, { fast: false });
    const quick = fastYaml(text);
    if (!quick) continue;
    fastCount++;
    t.notOk(full.error, `full parser accepts what the fast path accepts: ${JSON.stringify(text)}`);
    t.same(quick.value, full.value, JSON.stringify(text));
    t.same(JSON.stringify(quick.value), JSON.stringify(full.value), `key order: ${JSON.stringify(text)}`);
    t.same(documentOrder(quick.value), documentOrder(full.value), `document order: ${JSON.stringify(text)}`);
    const res = loadYaml(text);
    t.same(collectPositions(res, 'f'), collectPositions(full, 'f'), `positions: ${JSON.stringify(text)}`);
  }
  t.ok(fastCount >= 8, `fast path used for the common shapes (${fastCount})`);
  for (const text of [...MAP_FILE_SHAPES, ...FLOW_SHAPES, ...MULTI_LINE_SHAPES, ...BLOCK_SHAPES, ...LINES_SHAPES, COLON_TEXT])
    t.ok(fastYaml(text), `fast path: ${JSON.stringify(text)}`);
  for (const text of [...FLOW_GIVE_UP, ...BLOCK_GIVE_UP, ...LINES_GIVE_UP]) t.equal(fastYaml(text), undefined, `falls back: ${JSON.stringify(text)}`);
  for (const text of [
    '---\na: 1\n---\nb: 2\n',
    'a: 1\n...\nb: 2\n',
    'a: {} x\n',
    'a: []]\n',
    'a: &x\n  b: 1\nc: *x\n',
    'a: b\na: c\n',
    'yes: 1\n',
    'a:\n\tb: 1\n',
    'a: 1:30\n',
    'a: -1:05:30.5\n',
  ]) {
    t.equal(fastYaml(text), undefined, `falls back: ${JSON.stringify(text)}`);
  }
});

t.test('an alias is the anchored object itself, a merge copies, in both routes', async (t) => {
  const text = LINES_SHAPES.find((s) => s.includes('base: &b'))!;
  for (const [route, value] of [
    ['fast', fastYaml(text)?.value],
    ['full', loadYaml(text, { fast: false }).value],
  ] as const) {
    const s = (value as { p: { q: { r: { s: Record<string, Record<string, unknown>> } } } }).p.q.r.s;
    t.equal(s.l[0], s.l[1], `${route}: list alias`);
    t.equal(s.sq2, s.sq, `${route}: sequence alias`);
    t.equal(s.g, s.f, `${route}: flow map alias`);
    t.not(s.m1.z, s.base.z, `${route}: a merge copies nested maps`);
    // the last merge converted the anchored map again: its alias names that copy
    t.equal(s.use, s.m2.z, `${route}: anchor inside a merged map names the last copy`);
  }
});
