{% set root = salt['pillar.get']('root', '/tmp/brine-fleet') ~ '/' ~ grains['id'] %}
db-config:
  file.managed:
    - name: {{ root }}/db.conf
    - contents: |
        max_connections = {{ pillar['db']['max_connections'] }}
    - require:
      - file: fleet-root

db-check:
  cmd.run:
    - name: test -s {{ root }}/db.conf
    - require:
      - file: db-config
