{%- from 'lib/map.jinja' import mapped with context %}
{%- import 'lib/map.jinja' as m %}
{%- set who = 'local-var' %}
{%- import_yaml 'lib/local.yaml' as local with context %}
{%- import_json 'lib/data.json' as j %}
{%- import_text 'lib/notes.txt' as txt %}
{%- load_yaml as ly %}
k: [a, b]
n: {{ 1 + 1 }}
{%- endload %}
{%- load_json as lj %}
{"z": {{ [1, 2] | json }}}
{%- endload %}
{%- load_text as lt %}raw {{ 'text' }}{% endload %}
imports:
  test.nop:
    - mapped: {{ mapped | json }}
    - module: {{ m.mapped.port }}
    - local: {{ local | json }}
    - json: {{ j | json }}
    - text: {{ txt | json }}
    - ly: {{ ly | json }}
    - lj: {{ lj | json }}
    - lt: {{ lt | json }}
    - missing: "{% include 'lib/none.sls' ignore missing %}"
    - filtered: {{ ['a', 'bb', 'ccc'] | select('match', 'b+') | list | json }}
