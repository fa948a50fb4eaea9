{% from "webapp/map.jinja" import webapp with context %}
include:
  - webapp.install

webapp-config:
  file.managed:
    - name: {{ webapp.config }}
    - source: salt://webapp/files/webapp.conf.jinja
    - template: jinja
    - context:
      settings: {{ webapp.settings | json }}
    - require:
      - pkg: webapp-pkg
    - watch_in:
      - service: {{ webapp.service }}
