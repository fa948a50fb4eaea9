include:
  - lib
extend:
  l:
    test.nop:
      - comment: extended
exclude:
  - id: gone
m: test.nop
