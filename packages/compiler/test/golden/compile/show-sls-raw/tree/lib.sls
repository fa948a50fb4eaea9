l:
  test.nop: []
