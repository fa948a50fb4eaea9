{%- set x = 1 %}
{%- set seen = [] %}
{%- for i in [1, 2] %}
  {%- if i == 2 %}{% do seen.append(x) %}{% endif %}
  {%- set x = x + i %}
  {%- do seen.append(x) %}
{%- endfor %}
{%- set y = 'outer' %}
{%- if true %}{% set y = 'from-if' %}{% endif %}
{%- set ns = namespace(total=0) %}
{%- for i in [1, 2, 3] %}{% set ns.total = ns.total + i %}{% endfor %}
{%- macro m() %}{% set y = 'macro' %}{{ y }}{% endmacro %}
{%- set inner = [] %}
{%- for a in [1, 2] %}{% for b in [3] %}{% set a = a * 10 %}{% do inner.append(a + b) %}{% endfor %}{% do inner.append(a) %}{% endfor %}
{%- set pairs = [] %}
{%- for k, v in [['a', none], ['b', 2]] if k %}{% if v == None %}{% set v = {} %}{% endif %}{% do pairs.append(k ~ '=' ~ v) %}{% endfor %}
scoping:
  test.nop:
    - loop_set: "{{ seen }} {{ x }}"
    - if_set: {{ y }}
    - namespace: {{ ns.total }}
    - macro: "{{ m() }} {{ y }}"
    - nested: "{{ inner }}"
    - pairs: "{{ pairs }}"
