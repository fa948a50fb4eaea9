/**
 * `--grains FILE` and `--pillar FILE` hold YAML 1.1, read by the yaml library; a JSON file is read
 * without loading it when both readings agree. Each text here gives what the library gives.
 */
import t from 'tap';
import { parse } from 'yaml';
import { parseDataText } from '../src/local/data-text.js';

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
