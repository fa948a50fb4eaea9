o1:
  test.nop: []
o2:
  test.nop:
    - require_in:
      - test: o1
      - cmd: c
