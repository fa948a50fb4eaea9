{%- set s = {True: 'running', False: 'dead'} %}
{%- set n = {1: 'one', 'x': 'ex'} %}
{%- set version = [3007, 10] %}
x:
  service.{{ s.get(true) }}:
    - v: {{ s.get(True) }}
    - w: {{ s[False] }}
    - n: {{ n[1] }} {{ n.get(1) }} {{ 1 in n }} {{ 'toString' in n }}
    - cmp: {{ version >= [2015, 8, 0, 0] }} {{ [1, 2] < [1, 10] }} {{ (1, 'b') > (1, 'a') }}
