a:
  test.nop:
    - require:
      - test: b
b:
  test.nop:
    - watch:
      - test: c
c:
  test.nop:
    - onchanges:
      - test: a
fine:
  test.nop:
    - require:
      - test: a
selfish:
  test.nop:
    - require:
      - test: selfish
