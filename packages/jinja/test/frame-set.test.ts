/**
 * Variable writes as Jinja scopes them, which frame-set.ts takes on a faster path: `loop.*` in
 * nested loops, `set` inside a loop, an `if` and a macro not leaking out, a `set` at the top after
 * a loop, and a namespace written from a loop. Expected output is Jinja's (Salt 3007).
 */
import t from 'tap';
import { renderTemplateString } from '../src/index.js';

function render(text: string): string {
  const r = renderTemplateString(text, { name: 'frame.sls' });
  if (!r.ok) throw r.error;
  return r.text;
}

const CASES: Array<[string, string]> = [
  [
    '{% for a in [1, 2] %}{% for b in "xy" %}{{ loop.index }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.index0 }} {% endfor %}{{ loop.index }}|{% endfor %}',
    '1TrueFalse2210 2FalseTrue2101 1|1TrueFalse2210 2FalseTrue2101 2|',
  ],
  ['{% set x = 1 %}{% for i in [1, 2, 3] %}{% set x = i %}{{ x }}{% endfor %}{{ x }}', '1231'],
  ['{% set x = 1 %}{% if true %}{% set x = 2 %}{% endif %}{{ x }}', '2'],
  ['{% set x = 1 %}{% macro m() %}{% set x = 5 %}{{ x }}{% endmacro %}{{ m() }}{{ x }}', '51'],
  ['{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}', '6'],
  ['{% for i in [1] %}{% set loop_x = 3 %}{% endfor %}{{ loop_x is defined }}', 'False'],
  ['{% for k, v in {"a": 1, "b": 2}.items() %}{{ k }}{{ v }}{{ loop.index }}{% endfor %}', 'a11b22'],
  ['{% set a, b = 1, 2 %}{{ a }}{{ b }}', '12'],
];

for (const [text, want] of CASES) t.equal(render(text), want, text);
