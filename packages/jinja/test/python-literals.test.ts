import t from 'tap';
import { renderTemplateString } from '../src/index.js';

const render = (text: string) => {
  const r = renderTemplateString(text, { name: 'literals.jinja' });
  return r.ok ? r.text : `ERR ${r.error.message}`;
};

t.test('trailing commas, as map.jinja files write them', async (t) => {
  t.equal(render("{% set d = {'a': 1, 'b': 2,} %}{{ d.b }}"), '2');
  t.equal(render('{% set l = [1, 2,] %}{{ l | length }}'), '2');
  t.equal(render("{% set d = {\n  'Debian': {'pkg': 'apache2'},\n  'RedHat': {'pkg': 'httpd'},\n} %}{{ d.RedHat.pkg }}"), 'httpd');
});

t.test('tuples', async (t) => {
  t.equal(render('{{ (1, 2) | length }}'), '2');
  t.equal(render('{{ (1,) | length }}'), '1');
  t.equal(render('{{ (1 + 2) * 3 }}'), '9', 'a parenthesised expression is not a tuple');
  t.equal(render("{{ '%s-%s' % ('a', 'b') }}"), 'a-b');
});

t.test('a missing comma is a clear error', async (t) => {
  t.match(render('{{ [1 2] }}'), /ERR .*comma/);
});

t.test('namespace() and loop.cycle, as modern formulas use them', async (t) => {
  t.equal(
    render(
      '{% set ns = namespace(found=false, n=0) %}{% for x in [1,2,3] %}{% if x == 2 %}{% set ns.found = true %}{% endif %}{% set ns.n = ns.n + x %}{% endfor %}{{ ns.found }} {{ ns.n }}',
    ),
    'True 6',
  );
  t.match(render('{% set d = {} %}{% set d.x = 1 %}'), /ERR cannot assign attribute on non-namespace object/);
  t.equal(render("{% for i in [1, 2, 3] %}{{ loop.cycle('a', 'b') }}{% endfor %}"), 'aba');
});
