bad:
  test.nop:
    - arg:
        {a: 1}: 2
