a:
  test.nop: []
b:
  test.nop:
    - require:
      - test: a
      cwd: /
