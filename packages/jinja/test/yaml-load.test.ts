/**
 * The loader accepts what Salt's (PyYAML SafeLoader + Salt's constructors) accepts and refuses
 * what it refuses. Expected values are what salt.utils.yaml.safe_load gave for the same text on
 * Salt 3007.10.
 */
import t from 'tap';
import { loadYaml } from '../src/yaml-load.js';

const accepted: Array<[string, unknown]> = [
  ['a: {b: 1,\n  c: 2}\nd: {\n  e: [1,\n 2]\n}\n', { a: { b: 1, c: 2 }, d: { e: [1, 2] } }],
  ['a:\n  x: {b: 1,\n  c: 2}\n', { a: { x: { b: 1, c: 2 } } }],
  ['a:\n  x: {b: 1,\nc: 2}\n', { a: { x: { b: 1, c: 2 } } }],
  ['a:\n  - [1,\n  2]\n', { a: [[1, 2]] }],
  ['a:\n  b:\n    - x: {b: 1,\n  c: "q\n r",\n d: [1,\n2]}\n    - y\n', { a: { b: [{ x: { b: 1, c: 'q r', d: [1, 2] } }, 'y'] } }],
  ['a: |\n  {x,\nb: 1\n', { a: '{x,\n', b: 1 }],
  ["a:\n  - v: 'first line\n\n  second line'\n", { a: [{ v: 'first line\nsecond line' }] }],
  ['a:\n  - v: "one\\\n  \\ two"\n', { a: [{ v: 'one two' }] }],
  ['a: |\n  hello   ', { a: 'hello   ' }],
  [
    'a: 0644\nb: 0o644\nc: 1:30\nd: 0x1F\ne: 1e3\nf: 1.5e3\ng: y\nh: ~\ni: 2024-01-01\nk: 0b101\nl: +12\nm: 1_000\nn: 08\n',
    { a: 644, b: '0o644', c: 90, d: 31, e: '1e3', f: '1.5e3', g: 'y', h: null, i: '2024-01-01', k: 5, l: 12, m: 1000, n: '08' },
  ],
  ['x: [yes, No, ON, off, True, n]\n', { x: [true, false, true, false, true, 'n'] }],
  // a float needs a digit before the dot, or right after an unsigned dot (docker-compose's `build: .`)
  ['---\na: .\nb: ._5\nc: -.5\nd: .5\ne: 1.\nf: 1_0.5\n', { a: '.', b: '._5', c: '-.5', d: 0.5, e: 1, f: 10.5 }],
  ['a: .\nb: [., -.5]\n', { a: '.', b: ['.', '-.5'] }],
  // PyYAML ends an anchor name at ':': an anchored None key (Brine's None key is ''), not an
  // anchor named 'colorcolumn:'; block and quoted scalars keep their text.
  ['settings:\n  &colorcolumn: 80\n  number: 1\n', { settings: { '': 80, number: 1 } }],
  ['a:\n  &colorcolumn: 80\n', { a: { '': 80 } }],
  ['a:\n  - &x: 1\n', { a: [{ '': 1 }] }],
  ['a: |\n  &keep: me\nb: "&no: x"\n', { a: '&keep: me\n', b: '&no: x' }],
];

for (const [text, want] of accepted) {
  t.test(`accepts ${JSON.stringify(text).slice(0, 50)}`, async (t) => {
    const res = loadYaml(text);
    t.equal(res.error, undefined);
    t.same(res.value, want);
  });
}

const refused: Array<[string, string, number, number]> = [
  ['? {a: 1}\n: 2\n', 'found unacceptable key', 1, 3],
  ['{a: 1}: 2\n', 'found unacceptable key', 1, 1],
  ['x:\n  [1, 2]: 3\n', 'found unacceptable key', 2, 3],
  ['a: 1\na: 2\n', "found conflicting ID 'a'", 2, 1],
  ['a:\n\tb: 1\n', 'Tabs', 2, 1],
];

for (const [text, message, line, column] of refused) {
  t.test(`refuses ${JSON.stringify(text)}`, async (t) => {
    const warnings: unknown[] = [];
    const onWarning = (w: unknown) => warnings.push(w);
    process.on('warning', onWarning);
    const res = loadYaml(text);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    t.equal(res.value, undefined);
    t.match(res.error?.message, message);
    t.equal(res.error?.line, line, 'line');
    t.equal(res.error?.column, column, 'column');
    t.same(warnings, [], 'no process warning');
  });
}
