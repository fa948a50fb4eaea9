tmpl:
  file.managed:
    - user: root
    - group: root
    - mode: '0644'
    - require:
      - test: x
    - name: /tmp/tmpl
x:
  test.nop: []
user:
  file.managed:
    - mode: '0600'
    - use:
      - file: tmpl
