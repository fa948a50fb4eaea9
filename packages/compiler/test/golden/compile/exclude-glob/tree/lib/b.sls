lb:
  test.nop: []
