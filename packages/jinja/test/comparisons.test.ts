import t from 'tap';
import { renderTemplateString } from '../src/index.js';

const render = (text: string): string => {
  const r = renderTemplateString(text, { name: 'compare.jinja' });
  return r.ok ? r.text : `ERR ${r.error.message}`;
};

/** Each operator on a pair below, equal and above: a swapped or off-by-one operator shows in the row. */
const cases: Array<[string, string, string, string]> = [
  // left, right (less), right (equal), right (greater) as Jinja literals
  ['2', '1', '2', '3'],
  ["'b'", "'a'", "'b'", "'c'"],
  ['[1, 2]', '[1, 1]', '[1, 2]', '[1, 3]'],
  ['2.5', '2', '2.5', '3'],
];

t.test('<, <=, >, >= on numbers, strings and lists, as Python orders them', async (t) => {
  for (const [left, less, equal, greater] of cases) {
    const row = (right: string) => render(`{{ ${left} < ${right} }} {{ ${left} <= ${right} }} {{ ${left} > ${right} }} {{ ${left} >= ${right} }}`);
    t.equal(row(less), 'False False True True', `${left} against ${less}`);
    t.equal(row(equal), 'False True False True', `${left} against ${equal}`);
    t.equal(row(greater), 'True True False False', `${left} against ${greater}`);
  }
});

t.test('== and != beside them, and a chain evaluated link by link', async (t) => {
  t.equal(render('{{ 1 == 1 }} {{ 1 != 1 }} {{ 1 == 2 }} {{ 1 != 2 }}'), 'True False False True');
  t.equal(render('{{ 1 <= 1 < 2 }} {{ 1 < 1 <= 2 }} {{ 3 >= 3 > 2 }} {{ 3 > 3 >= 2 }}'), 'True False True False');
});

t.test('comparisons in `if`, as version checks in formulas write them', async (t) => {
  const tpl = '{% for v in [1, 2, 3] %}{% if v <= 2 %}a{% endif %}{% if v >= 2 %}b{% endif %}{% if v < 2 %}c{% endif %}{% if v > 2 %}d{% endif %}{% endfor %}';
  t.equal(render(tpl), 'ac' + 'ab' + 'bd');
});
