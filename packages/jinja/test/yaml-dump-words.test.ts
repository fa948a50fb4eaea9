/**
 * The `yaml` filter's choice of style for scalars, which the dumper takes on fast paths for
 * one-word text (no space, no line break) and for quoted text without a space or a quote:
 * fixtures/yaml-dump-words.json holds what the character-by-character analysis (PyYAML's
 * analyze_scalar, transcribed) printed for indicator characters in every position, implicit-type
 * look-alikes, words and sentences, as a value, in a flow list and as a key.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pyYamlDump } from '../src/py-yaml-dump.js';
import { renderTemplateString } from '../src/index.js';

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('./fixtures/yaml-dump-words.json', import.meta.url)), 'utf8')) as Record<string, string[]>;

t.test('scalars keep their style', async (t) => {
  for (const [w, want] of Object.entries(fixture)) {
    const got = [pyYamlDump(w), pyYamlDump([w], true), pyYamlDump({ [w]: w }, false), pyYamlDump({ [w]: [w] }, null)];
    // Names stay printable ASCII: a raw U+2028 would break the TAP stream.
    t.same(
      got,
      want,
      JSON.stringify(w).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
  }
});

t.test('the yaml filter dumps the value itself, not a copy', async (t) => {
  const render = (text: string) => {
    const r = renderTemplateString(text, { name: 'words.sls' });
    return r.ok ? r.text : r.error.message;
  };
  // a key named __proto__ is a key like any other (Salt: `{__proto__: 1, a: x}`); a copy made by assignment lost it
  t.equal(render('{{ {"__proto__": 1, "a": "x"} | yaml }}'), '{__proto__: 1, a: x}');
  t.equal(render('{{ {"b": ("x" | safe), "a": ["y" | safe]} | yaml(False) }}'), 'a:\n- y\nb: x');
});

t.test('a dump repeated comes out as the first; values JSON confuses are told apart', async (t) => {
  const d: Record<string, unknown> = { a: 1, b: ['x'] };
  t.equal(pyYamlDump(d, false), 'a: 1\nb:\n- x');
  t.equal(pyYamlDump(d, false), 'a: 1\nb:\n- x', 'the same again');
  (d.b as unknown[]).push('y');
  t.equal(pyYamlDump(d, false), 'a: 1\nb:\n- x\n- y', 'changed in place: dumped anew');
  t.equal(pyYamlDump(d, true), '{a: 1, b: [x, y]}', 'another style');
  // pairs with the same JSON text
  t.equal(pyYamlDump({}), '{}');
  t.equal(pyYamlDump({ a: undefined }), '{a: null}');
  t.equal(pyYamlDump([null, 1]), '[null, 1]');
  t.equal(pyYamlDump([NaN, 1]), '[.nan, 1]');
  t.equal(pyYamlDump({ val: 'x', length: 1 }), '{length: 1, val: x}');
  t.equal(pyYamlDump(new String('x')), 'x');
});
