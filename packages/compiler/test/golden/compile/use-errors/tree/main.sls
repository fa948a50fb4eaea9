me:
  test.nop:
    - use:
      - test: me
a:
  test.nop:
    - use:
      - test: b
b:
  test.nop:
    - use:
      - test: a
ghost_user:
  test.nop:
    - use:
      - test: nothing_here
dict_use:
  test.nop:
    - use:
        test: a
