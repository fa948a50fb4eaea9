a:
  test.nop:
    - require:
      - test: nope
      - sls: nosls
