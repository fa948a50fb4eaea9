/**
 * `--grains FILE` and `--pillar FILE` hold YAML 1.1, read by the yaml library; a JSON file is read
 * without loading it when both readings agree. Each text here gives what the library gives.
 */
import t from 'tap';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { dataTextWay, parseDataText } from '../src/local/data-text.js';

const texts = [
  '{"os": "Debian", "num_cpus": 2, "mem": 1.5, "ok": true, "none": null, "tags": ["a", "b"], "nested": {"139": "x", "a": {}}}\n',
  '{\n  "cwd": "/tmp",\n  "dns": {\n    "nameservers": [\n      "10.255.255.53"\n    ],\n    "domain": ""\n  },\n  "big": 12345678901234567890, "neg": -0, "z": 0.0\n}\n',
  '{"exp": 1e3, "exp2": 1.5E+3}',
  '{"id": "4e2f0a", "n": -12.5e0}',
  '{"id": "4e2f0a", "n": 1.0, "m": 0, "k": -3}',
  '{"esc": "a\\"b\\\\c\\nd\\te\\/f", "u": "\\u00e9\\ud83d\\ude00"}',
  '{"a": 1, "a": 2}',
  '{"__proto__": {"x": 1}}',
  '{"tab":\t1}',
  '{"a": 1} trailing',
  '[1, 2]',
  'os: Debian\nnum_cpus: 0644\n',
  '{"line": "a\u2028b"}',
  '',
];

for (const text of texts) {
  const name = JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  t.test(name.slice(0, 60), async (t) => {
    let want: unknown;
    let wantError: string | undefined;
    try {
      want = parse(text, { version: '1.1' });
    } catch (e) {
      wantError = (e as Error).message;
    }
    let got: unknown;
    let gotError: string | undefined;
    try {
      got = parseDataText(text);
    } catch (e) {
      gotError = (e as Error).message;
    }
    t.equal(gotError, wantError);
    t.same(got, want);
    t.equal(JSON.stringify(got), JSON.stringify(want), 'key order');
  });
}

t.test('plain JSON is read by JSON.parse, the rest by the yaml library', async (t) => {
  const grains = readFileSync('/work/scratch/corpus/users/grains.json', 'utf8');
  t.equal(dataTextWay(`${JSON.stringify(JSON.parse(grains), null, 2)}\n`), 'json', 'a grains dump spread over lines');
  t.equal(dataTextWay('{"os": "Debian", "n": [1, -2.5, 0, true, false, null], "m": {}}'), 'json');
  for (const text of [
    '{"a": 1, "a": 2}',
    '{"a": {"b": 1, "b": 1}}',
    '{"big": 12345678901234567890}',
    '{"f": 0.1234567890123456789}',
    '{"exp": 1e3}',
    '{"__proto__": {}}',
    '{"<<": {"a": 1}}',
    '{"esc": "a\\/b"}',
    '{"esc": "\\u00e9"}',
    '{"esc": "\\r"}',
    '{"tab":\t1}',
    '{"cr": 1}\r\n',
    '{"a"\n: 1}',
    `{"${'k'.repeat(1000)}": 1}`,
    '{"del": "\u007f"}',
    '{"nel": "a\u0085b"}',
    '{"bom": "\ufeff"}',
    '{"emoji": "\ud83d\ude00"}',
    `${'['.repeat(70)}${']'.repeat(70)}`,
    'os: Debian',
    '"a string"',
  ]) {
    t.equal(dataTextWay(text), 'yaml', JSON.stringify(text).slice(0, 60));
  }
});

/** Random JSON texts (compact, indented, or broken over lines anywhere JSON allows): the same value as YAML 1.1's, or the same error. */
t.test('fuzzed JSON reads as YAML 1.1 does', async (t) => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), Math.floor(seed / 65536) % n);
  const chars = [
    'a',
    'Z',
    '0',
    ' ',
    '-',
    ':',
    '#',
    ',',
    '[',
    '{',
    '"',
    '\\',
    '\n',
    '\t',
    '/',
    "'",
    '*',
    '&',
    '!',
    '|',
    '>',
    '%',
    '@',
    '`',
    'é',
    '\u2028',
    '~',
    '?',
  ];
  const str = (): string => Array.from({ length: rnd(6) }, () => chars[rnd(chars.length)]).join('');
  const scalars = (): unknown =>
    [str(), rnd(1000) - 500, (rnd(100000) - 50000) / 64, true, false, null, 'yes', 'no', 'on', '~', '0644', '1e3', '', '2026-11-28', '12:30', '.inf', 0, -0.5][
      rnd(18)
    ];
  const value = (depth: number): unknown => {
    if (depth > 3 || rnd(3) === 0) return scalars();
    if (rnd(2) === 0) return Array.from({ length: rnd(4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = rnd(4); i > 0; i--) o[rnd(3) === 0 ? str() : `k${rnd(20)}`] = value(depth + 1);
    return o;
  };
  const spread = (s: string) => s.replace(/([,[{:])/g, (m) => (rnd(4) === 0 ? `${m}\n${' '.repeat(rnd(3))}` : m));
  let json = 0;
  for (let i = 0; i < 3000; i++) {
    const v = rnd(2) === 0 ? value(0) : { top: value(0) };
    const text = [JSON.stringify(v), JSON.stringify(v, null, 2), spread(JSON.stringify(v)), `{"a": 1, "b": ${JSON.stringify(v)}, "a": 2}`][rnd(4)];
    let want: unknown;
    let got: unknown;
    try {
      want = parse(text, { version: '1.1' });
    } catch (e) {
      want = `error ${(e as Error).message}`;
    }
    try {
      got = parseDataText(text);
    } catch (e) {
      got = `error ${(e as Error).message}`;
    }
    if (dataTextWay(text) === 'json') json++;
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      t.fail(`differs: ${JSON.stringify(text)}`, { got, want });
      return;
    }
  }
  t.ok(json > 500, `${json} of 3000 read as JSON`);
});
