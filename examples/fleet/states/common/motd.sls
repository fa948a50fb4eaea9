{% set root = salt['pillar.get']('root', '/tmp/brine-fleet') ~ '/' ~ grains['id'] %}
fleet-root:
  file.directory:
    - name: {{ root }}
    - makedirs: True

motd:
  file.managed:
    - name: {{ root }}/motd
    - source: salt://common/motd.j2
    - template: jinja
    - require:
      - file: fleet-root
