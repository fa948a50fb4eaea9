conf:
  file.managed:
    - name: /tmp/brine-golden-conf
    - template: jinja
    - context:
      config:
        servers: [a, b]
    - mode: '0644'
      user: root
      group: root

empty_context:
  file.managed:
    - name: /tmp/brine-golden-empty
    - context:
    - defaults: {}

with_names:
  cmd.run:
    - cwd: /
      names:
        - echo one
        - echo two
    - require:
      - file: conf
