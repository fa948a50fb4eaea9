{% from "webapp/map.jinja" import webapp with context %}
{{ webapp.service }}:
  pkg.installed:
    - name: {{ webapp.service }}-tools

webapp-service:
  service.running:
    - name: {{ webapp.service }}
    - enable: True
    - order: '10'
{%- for site in webapp.get('sites', []) %}
webapp-site-{{ site }}:
  file.managed:
    - name: /etc/webapp/sites/{{ site }}
    - {{ webapp.get('site_mode', False) }}
    - require_in:
      - service: webapp-service
      - pkg: webapp-pkg
{%- endfor %}

extend:
  webapp-pkg:
    pkg:
      - version: '1.2'
