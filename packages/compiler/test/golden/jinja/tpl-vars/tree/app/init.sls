{%- from 'lib/sub/map.jinja' import where as plain %}
{%- from 'lib/sub/map.jinja' import where as ctx with context %}
{%- import_yaml 'lib/sub/data.yaml' as yplain %}
{%- import_yaml 'lib/sub/data.yaml' as yctx with context %}
tpl:
  test.nop:
    - plain: {{ plain | json }}
    - ctx: {{ ctx | json }}
    - yplain: {{ yplain | json }}
    - yctx: {{ yctx | json }}
    - own: {{ [tpldir, tplfile, tpldot] | json }}
