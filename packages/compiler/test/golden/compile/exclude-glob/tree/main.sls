include:
  - lib.a
  - lib.b
  - keep
exclude:
  - sls: lib.*
  - id: keep_not
mine:
  test.nop: []
