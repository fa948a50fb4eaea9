include:
  - lib
extend:
  l:
    test:
      - comment: extended
m:
  test.nop:
    - require_in:
      - test: l
