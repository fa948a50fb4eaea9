{%- from tpldir ~ '/map.jinja' import nginx with context %}
{%- set modules = nginx.modules + ['extra'] %}

nginx_pkg:
  pkg.installed:
    - name: {{ nginx.package }}
    - pkgs: {{ modules | json }}

nginx_conf:
  file.managed:
    - name: {{ nginx.config }}
    - mode: 0644
    - user: {{ salt.pillar.get('nginx:user', 'root') }}
    - makedirs: yes
    - require:
      - pkg: nginx_pkg

{%- if nginx.get('enable', True) %}
nginx_service:
  service.running:
    - name: {{ nginx.service }}
    - enable: {{ nginx.enable | default(True) }}
    - watch:
      - file: nginx_conf
{%- endif %}
{%- for port in nginx.ports | default([]) %}
nginx_port_{{ loop.index }}:
  test.succeed_without_changes:
    - name: "port {{ '%05d' % port }} ({{ loop.index0 }}/{{ loop.length }})"
{%- endfor %}
