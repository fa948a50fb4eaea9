{% set root = salt['pillar.get']('root', '/tmp/brine-fleet') ~ '/' ~ grains['id'] %}
web-config:
  file.managed:
    - name: {{ root }}/web.conf
    - source: salt://web/web.conf.j2
    - template: jinja
    - require:
      - file: fleet-root

web-reload:
  test.succeed_with_changes:
    - comment: the web server would reload here
    - onchanges:
      - file: web-config
