{%- set d = dict(a=1, b=2,) %}
{%- set t = ('x',) %}
{%- set pair = 1, 2 %}
{%- set first, second = pair %}
{%- macro box(title, sep='-') -%}
[{{ title }}{{ sep }}{{ caller() }}]
{%- endmacro %}
{%- set ns = namespace(count=0, seen=[]) %}
{%- for i in range(10) %}
  {%- if i == 6 %}{% break %}{% endif %}
  {%- if i is odd %}{% continue %}{% endif %}
  {%- set ns.count = ns.count + 1 %}
  {%- do ns.seen.append(i) %}
{%- endfor %}
{%- set block %}one {{ 1 + 1 }}{% endset %}
syntax:
  test.nop:
    - trailing: {{ [1, 2,] }}
    - dict_call: {{ d | json }}
    - tuple: "{{ t }}"
    - tuple_in: {{ 'x' in t }}
    - pair: "{{ pair }} {{ first }} {{ second }}"
    - chained: {{ 'a' if false else 'b' if false else 'c' }}
    - chained_tuple: "{{ ('one',) if t|length > 1 else ('two',) }}"
    - sameas: {{ none is sameas none }}
    - sameas_false: {{ 0 is sameas false }}
    - divisible: {{ 9 is divisibleby 3 }}
    - not_test: {{ 3 is not divisibleby 2 }}
    - ns: "{{ ns.count }} {{ ns.seen }}"
    - filtered: "{% for k, v in d|dictsort if v > 1 %}{{ k }}={{ v }}/{{ loop.index }}/{{ loop.length }}{% endfor %}"
    - items: "{% for x in [1, 2, 3] %}{{ loop.previtem is defined }}{{ loop.nextitem|default('-') }}{{ loop.cycle('a', 'b') }}{% endfor %}"
    - caller: "{% call box('T',) %}body{% endcall %}"
    - block_set: "{{ block }}"
    - odict: {{ odict([('z', 1), ('a', 2)]) | json(sort_keys=False) }}
    - slices: "{{ 'abcdef'[::2] }} {{ [1, 2, 3, 4][1:3] }} {{ 'abc'[-1] }} {{ [1, 2, 3][::-1] }}"
    - percent: "{{ '%s-%05.1f-%d%%' % ('a', 3.14159, 50) }} {{ '%(k)s' % {'k': 'v'} }}"
