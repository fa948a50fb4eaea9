/** The Jinja dialect: Python semantics, Salt's tags, filters, tests and salt helpers. */
import t from 'tap';
import { renderTemplateString } from '../src/render/index.js';

const files: Record<string, string> = {
  'f/map.jinja': "{% import_yaml './defaults.yaml' as d %}{% set conf = d.conf %}{% macro hi(x) %}hi {{ x }}{% endmacro %}",
  'f/defaults.yaml': 'conf: {port: 80, enabled: yes, mode: 0644}\n',
  'f/data.json': '{"b": 2, "a": 1}',
  'f/notes.txt': 'plain text',
  'f/part.jinja': 'part:{{ who }}',
};

function render(tpl: string, vars: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  const r = renderTemplateString(tpl, {
    name: 'f/test.sls',
    read: (p) => files[p],
    grains: { id: 'web1', os_family: 'Debian', os: 'Ubuntu', roles: ['web', 'db'] },
    pillar: { nginx: { port: 8080, tls: { on: true } }, users: ['ann'] },
    vars,
    ...extra,
  });
  if (!r.ok) throw new Error(`${r.error.file}:${r.error.line}: ${r.error.message}`);
  return r.text;
}

const cases: Array<[string, string, Record<string, unknown>?]> = [
  // Python truthiness, None/True/False, str() output
  ["{% if [] %}y{% else %}n{% endif %}{% if {} %}y{% else %}n{% endif %}{{ [] or 'e' }}", 'nne'],
  ['{{ None }} {{ True }} {{ false }} {{ [1, "a", None] }} {{ {"a": True} }}', "None True False [1, 'a', None] {'a': True}"],
  ['{{ not [] }} {{ 1 == 1.0 }} {{ "1" == 1 }} {{ [1, 2] == [1, 2] }}', 'True True False True'],
  // operators
  ["{{ '%s-%s' % ('a', 'b') }} {{ '%d%%' % 50 }} {{ '%(x)s' % {'x': 1} }} {{ '%-4s|' % 'a' }}", 'a-b 50% 1 a   |'],
  ["{{ [1] + [2] }} {{ 'ab' * 2 }} {{ 7 // 2 }} {{ -7 % 3 }} {{ 2 ** 3 }} {{ 'a' ~ 1 ~ None }}", '[1, 2] abab 3 2 8 a1None'],
  ['{{ (1, 2) }} {{ [1, 2, 3][1:] }} {{ [1, 2, 3][::-1] }} {{ "abcdef"[1:3] }} {{ [1, 2, 3][-1] }}', '(1, 2) [2, 3] [3, 2, 1] bc 3'],
  ["{% set k = 'key' %}{{ {k: 1, 'lit': 2} }}", "{'key': 1, 'lit': 2}"],
  // loops
  [
    '{% for x in "ab" %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}|{% endfor %}',
    '10TrueFalse22|21FalseTrue21|',
  ],
  ["{% for k in {'a': 1, 'b': 2} %}{{ k }}{% endfor %} {% for k, v in {'a': 1}.items() %}{{ k }}={{ v }}{% endfor %}", 'ab a=1'],
  ['{% for x in [] %}x{% else %}empty{% endfor %}', 'empty'],
  // dict methods
  [
    "{% set d = {'a': 1} %}{% do d.update({'b': 2}) %}{% do d.update(c=3) %}{{ d }} {{ d.get('z', 0) }} {{ d.get('z') }} {{ d.keys() | list }} {{ d.values() | list }}",
    "{'a': 1, 'b': 2, 'c': 3} 0 None ['a', 'b', 'c'] [1, 2, 3]",
  ],
  ["{% set d = {'a': 1} %}{{ d.setdefault('b', []) }}{% do d.b.append(1) %}{{ d.pop('a') }}{{ d }}{{ d.pop('x', 'dflt') }}", "[]1{'b': [1]}dflt"],
  ["{% set d = {'items': 'key wins'} %}{{ d.items }} {{ d.items() | list }}", "key wins [('items', 'key wins')]"],
  // list methods
  [
    '{% set l = [3, 1] %}{% do l.append(2) %}{% do l.extend([5]) %}{% do l.insert(0, 0) %}{{ l }} {{ l.pop() }} {{ l.index(1) }} {{ l.count(3) }}{% do l.sort() %} {{ l }}',
    '[0, 3, 1, 2, 5] 5 2 1 [0, 1, 2, 3]',
  ],
  // string methods
  [
    "{{ ' a b '.strip() }}|{{ 'a,b'.split(',') }}|{{ 'a b  c'.split() }}|{{ 'a.b.c'.rsplit('.', 1) }}|{{ 'abc'.startswith(('x', 'a')) }}|{{ 'aXa'.replace('a', 'b') }}",
    "a b|['a', 'b']|['a', 'b', 'c']|['a.b', 'c']|True|bXb",
  ],
  [
    "{{ '{}-{}'.format(1, 2) }} {{ '{0}{0}'.format('x') }} {{ '{name}!'.format(name='n') }} {{ '{:>4}|{:<3}|{:05.1f}'.format('a', 'b', 3.14159) }} {{ '-'.join(['a', 'b']) }}",
    'x 1-2 xx n!    a|b  |003.1 a-b'.slice(2),
  ],
  [
    "{{ 'hello world'.title() }} {{ 'ABC'.lower() }} {{ 'x'.upper() }} {{ 'a-b'.capitalize() }} {{ '42'.isdigit() }} {{ '7'.zfill(3) }}",
    'Hello World abc X A-b True 007',
  ],
  // filters
  ["{{ undefined_thing | default('d') }} {{ '' | default('e', true) }} {{ none | default('kept') }} {{ [] | d('x', true) }}", 'd e None x'],
  [
    "{{ ['b', 'a'] | join(', ') }} {{ ['b', 'a'] | sort }} {{ ['b', 'a'] | sort(reverse=true) }} {{ [1, 1, 2] | unique }} {{ [3, 1] | min }} {{ [3, 1] | max }} {{ [1, 2] | sum }}",
    "b, a ['a', 'b'] ['b', 'a'] [1, 2] 1 3 3",
  ],
  ["{{ {'b': 1, 'a': 2} | dictsort }} {{ {'a': 1} | length }} {{ 'abc' | count }} {{ [1, 2] | first }} {{ [1, 2] | last }}", "[('a', 2), ('b', 1)] 1 3 1 2"],
  [
    "{{ {'a': [1, 'x'], 'b': None} | json }} {{ {'b': 1, 'a': True} | tojson }} {{ {'a': [1, 2]} | yaml }} {{ \"it's\" | yaml_squote }} {{ 'say \"x\"' | yaml_dquote }}",
    '{"a": [1, "x"], "b": null} {"b": 1, "a": true} {a: [1, 2]} \'it\'\'s\' "say \\"x\\""',
  ],
  [
    "{{ 'a: [1, 2]' | load_yaml }} {{ '{\"x\": 1}' | load_json }} {{ {'a': {'b': [10, 20]}} | traverse('a:b:1') }} {{ {'a': 1} | traverse('x:y', 'no') }}",
    "{'a': [1, 2]} {'x': 1} 20 no",
  ],
  ["{{ 'yes' | to_bool }} {{ 'no' | to_bool }} {{ 1 | to_bool }} {{ none | to_bool }}", 'True False True False'],
  [
    "{{ 'web-01' | regex_replace('(\\\\w+)-(\\\\d+)', '\\\\2_\\\\1') }} {{ 'abc123' | regex_search('(\\\\d+)') }} {{ 'abc' | regex_match('b') }} {{ 'A' | regex_match('a', ignorecase=True) }}",
    "01_web ('123',) None ()",
  ],
  ["{{ [1, 2, 3, 4] | select('odd') | list }} {{ [0, 1, ''] | select | list }} {{ [1, 2, 3] | reject('equalto', 2) | list }}", '[1, 3] [1] [1, 3]'],
  [
    "{% set us = [{'n': 'a', 'on': true}, {'n': 'b', 'on': false}] %}{{ us | selectattr('on') | map(attribute='n') | list }} {{ us | rejectattr('on') | map(attribute='n') | join }} {{ us | selectattr('n', 'equalto', 'b') | list | length }}",
    "['a'] b 1",
  ],
  [
    "{{ ['a', 'b'] | map('upper') | list }} {{ [1.7, 2.2] | map('int') | list }} {{ '3' | int + 1 }} {{ 'x' | int(7) }} {{ '2.5' | float }} {{ 2.567 | round(1) }} {{ -3 | abs }}",
    "['A', 'B'] [1, 2] 4 7 2.5 2.6 3",
  ],
  [
    "{{ 'a\\nb' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ [1, 2, 3, 4, 5] | batch(2) | list }}|{{ '%s=%s' | format('k', 'v') }}|{{ 'a b' | quote }}|{{ ' x ' | trim }}|{{ 'a b c' | wordcount }}",
    "a\n  b|  a\n  b|[[1, 2], [3, 4], [5]]|k=v|'a b'|x|3",
  ],
  [
    "{{ 'abc' | replace('b', 'B') }} {{ 'hello' | title }} {{ 'x' | sequence }} {{ [1] | sequence }} {{ 5 | string ~ '!' }} {{ 'ab' | list }} {{ [[1, [2]], 3] | flatten }}",
    "aBc Hello ['x'] [1] 5! ['a', 'b'] [1, 2, 3]",
  ],
  // tests
  [
    '{{ x is defined }} {{ y is defined }} {{ none is none }} {{ {} is mapping }} {{ [] is iterable }} {{ "s" is string }} {{ 3 is number }} {{ 4 is divisibleby(2) }} {{ "a" in ["a"] }} {{ "web" is match("w.b") }}',
    'True False True True True True True True True True',
    { x: 1 },
  ],
  // tags
  ["{% import_yaml 'f/defaults.yaml' as d %}{{ d.conf.port }} {{ d.conf.enabled }} {{ d.conf.mode }}", '80 True 644'],
  ["{% import_json 'f/data.json' as j %}{{ j }} {% import_text 'f/notes.txt' as txt %}{{ txt }}", "{'b': 2, 'a': 1} plain text"],
  ['{% load_yaml as y %}\nk: [a, b]\n{% endload %}{{ y.k }}{% load_json as j %}{"n": 1}{% endload %}{{ j.n }}', "['a', 'b']1"],
  ["{% from 'f/map.jinja' import conf, hi with context %}{{ conf.port }} {{ hi('x') }}", '80 hi x'],
  ["{% import './map.jinja' as m %}{{ m.conf.port }}", '80'],
  ["{% include 'f/part.jinja' %}|{% include 'f/none.jinja' ignore missing %}|", 'part:me||', { who: 'me' }],
  ['{% raw %}{{ kept }}{% endraw %} {# gone #}x', '{{ kept }} x'],
  ['{%- set a = 1 -%}\n  {{ a }}  \n{%- if true %} t{% endif %}', '1 t'],
  ["{% macro box(t) %}[{{ t }}{{ caller() }}]{% endmacro %}{% call box('a') %}body{% endcall %}", '[abody]'],
  ["{% macro f(a, b='B') %}{{ a }}{{ b }}{% endmacro %}{{ f('x') }}{{ f('y', b='z') }}", 'xByz'],
  ['{{ range(3) | list }} {{ range(1, 7, 2) | list }}', '[0, 1, 2] [1, 3, 5]'],
];

for (const [tpl, want, vars] of cases) {
  let got: string;
  try {
    got = render(tpl, vars);
  } catch (e) {
    got = `error: ${(e as Error).message}`;
  }
  t.equal(got, want, tpl);
}

t.test('salt helpers', async (t) => {
  const r = (s: string) => render(s);
  t.equal(r("{{ salt['pillar.get']('nginx:port') }} {{ salt.pillar.get('nginx:missing', 'dflt') }} {{ salt['pillar.get']('nope') }}|"), '8080 dflt |');
  t.equal(r("{{ salt['pillar.get']('nginx', default={'port': 1, 'user': 'www'}, merge=True) }}"), "{'port': 8080, 'user': 'www', 'tls': {'on': True}}");
  t.equal(r("{{ salt['grains.get']('os') }} {{ salt.grains.get('roles:0') }} {{ salt['grains.get']('x.y', 'd', delimiter='.') }}"), 'Ubuntu web d');
  t.equal(r("{{ salt['config.get']('nginx:port') }} {{ salt['config.get']('os_family') }} {{ salt['config.get']('id') }}"), '8080 Debian web1');
  t.equal(r("{{ salt['grains.filter_by']({'Debian': {'p': 'apache2'}, 'RedHat': {'p': 'httpd'}}) }}"), "{'p': 'apache2'}");
  t.equal(
    r(
      "{{ salt['grains.filter_by']({'Ubu*': 1, 'default': 2}, grain='os') }} {{ salt['grains.filter_by']({'default': {'a': 1}}, grain='nope', merge={'b': 2}) }}",
    ),
    "1 {'a': 1, 'b': 2}",
  );
  t.equal(r("{{ salt['grains.filter_by']({'base': {'a': 1, 'b': 1}, 'Debian': {'b': 2}}, base='base') }}"), "{'a': 1, 'b': 2}");
  t.equal(
    r("{{ salt['slsutil.merge']({'a': {'x': 1}}, {'a': {'y': 2}}) }} {{ salt['defaults.merge']({'a': [1]}, {'a': [2]}, merge_lists=True) }}"),
    "{'a': {'x': 1, 'y': 2}} {'a': [1, 2]}",
  );
  t.equal(
    r("{{ salt['file.dirname']('/a/b/c') }} {{ salt['file.basename']('/a/b/c') }} {{ salt['file.join']('/a', 'b') }} {{ salt['test.true']() }}"),
    '/a/b c /a/b True',
  );
  t.equal(r("{% do salt.log.debug('x') %}{{ salt['log.info']('y') }}|"), '|');
  t.equal(r('{{ grains.id }} {{ opts.id }} {{ pillar.users }}'), "web1 web1 ['ann']");
  const over = renderTemplateString("{{ salt['cmd.has_exec']('ls') }} {{ salt.custom.fn(1, k=2) }}", {
    name: 'x',
    salt: { cmd: { has_exec: () => true }, custom: { fn: (a: number, kw: { k: number }) => a + kw.k } },
  });
  t.same(over, { ok: true, text: 'True 3' });
});

t.test('pillar is not shared between renders', async (t) => {
  const pillar = { d: { a: 1 } };
  renderTemplateString("{% do pillar.d.update({'b': 2}) %}", { name: 'x', pillar });
  t.same(pillar, { d: { a: 1 } });
});

t.test('sandbox limits and errors', async (t) => {
  const r = renderTemplateString('{{ range(200000) | length }}', { name: 'x' });
  t.equal(r.ok, false);
  if (!r.ok) t.match(r.error.message, /range too big/);
  const u = renderTemplateString('\n{{ nope() }}', { name: 'y' });
  t.equal(u.ok, false);
  if (!u.ok) {
    t.equal(u.error.file, 'y');
    t.equal(u.error.line, 2);
    t.match(u.error.message, /nope/);
  }
  const raised = renderTemplateString("{{ raise('custom failure') }}", { name: 'z' });
  t.equal(raised.ok, false);
  if (!raised.ok) t.match(raised.error.message, /custom failure/);
});

t.test('an error after an import or include names the template it happened in', async (t) => {
  const cases: Array<[string, string]> = [
    ["{% from 'f/map.jinja' import conf with context %}\n{{ conf.port }}\n{{ missing_after_from }}", 'missing_after_from'],
    ["{% import 'f/map.jinja' as m %}\n{{ m.conf.port }}\n{{ missing_after_import }}", 'missing_after_import'],
    ["{% include 'f/part.jinja' %}\nx\n{{ missing_after_include }}", 'missing_after_include'],
  ];
  for (const [tpl, name] of cases) {
    const r = renderTemplateString(tpl, { name: 'f/test.sls', read: (p) => files[p], vars: { who: 'w' } });
    t.equal(r.ok, false, name);
    if (!r.ok) {
      t.equal(r.error.file, 'f/test.sls', name);
      t.equal(r.error.line, 3, name);
      t.match(r.error.message, name);
    }
  }
  // Jinja binds a name the template does not export to undefined: an error only where it is used.
  t.equal(render("{% from 'f/map.jinja' import conf, not_exported with context %}{{ conf.port }}"), '80');
  const used = renderTemplateString("{% from 'f/map.jinja' import not_exported %}\n{{ not_exported }}", { name: 'f/test.sls', read: (p) => files[p] });
  t.equal(used.ok, false);
  if (!used.ok) t.same([used.error.file, used.error.line], ['f/test.sls', 2]);
});

t.test('render_timeout: a template that loops too long fails with its own code, naming the file', async (t) => {
  const { setRenderTimeout } = await import('../src/index.js');
  setRenderTimeout(0.2);
  t.teardown(() => setRenderTimeout(30));
  const runaway = '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}';
  const r = renderTemplateString(`ok\n${runaway}`, { name: 'f/slow.sls', read: (p) => files[p] });
  t.equal(r.ok, false);
  if (!r.ok) {
    t.equal(r.error.code, 'BRINE_ERR_COMPILE_RENDER_TIMEOUT');
    t.equal(r.error.file, 'f/slow.sls');
    t.match(r.error.message, /render_timeout/);
  }
  t.equal(render('{% for a in range(3) %}{{ a }}{% endfor %}'), '012', 'the next render has its own time');
});
