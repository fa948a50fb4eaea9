more:
  test.nop: []
