la:
  test.nop: []
