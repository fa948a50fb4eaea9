{%- set keys = ['id', 'saltenv', 'pillarenv', '__cli', 'file_client', 'renderer', 'master', 'hash_type', 'state_top', 'default_top', 'test'] %}
opts-values:
  test.nop:
{%- for k in keys %}
    - {{ k }}: {{ opts[k] | json }}
{%- endfor %}
    - grains_id: {{ opts.grains.id }}
    - pillar: {{ opts.pillar | json }}
    - config_get_master: {{ salt['config.get']('master') }}
opts-shapes:
  test.nop:
    - paths: {{ [opts.cachedir is string, opts.config_dir is string, opts.conf_file is string] | json }}
    - roots: {{ [opts.file_roots.base is sequence, opts.pillar_roots.base is sequence] | json }}
