l:
  test.nop: []
gone:
  test.nop: []
