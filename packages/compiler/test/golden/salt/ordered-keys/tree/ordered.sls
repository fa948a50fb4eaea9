{%- from "map.jinja" import svc with context %}
{%- for name, details in svc.services.items() %}
svc-{{ name }}:
  test.nop:
    - port: '{{ details.get('port', name) }}'
{%- endfor %}

{%- for key in svc.extra.keys() %}
extra-key-{{ key }}:
  test.nop
{%- endfor %}

{%- for value in svc.extra.values() %}
extra-value-{{ value }}:
  test.nop
{%- endfor %}

{%- set d = {'b': 1} %}
{%- do d.update({'x': 2}) %}
{%- do d.update(svc.extra) %}
{%- for k in d %}
updated-{{ k }}:
  test.nop
{%- endfor %}

{%- set both = salt['defaults.merge']({'m': 1, 5: 'five'}, svc.services, in_place=False) %}
{%- for k in both %}
merged-{{ k }}:
  test.nop
{%- endfor %}

{%- set loaded = "{z: 1, 20: 2, y: 3, 10: 4}" | load_yaml %}
{%- for k, v in loaded.items() %}
loaded-{{ k }}:
  test.nop:
    - value: {{ v }}
{%- endfor %}
