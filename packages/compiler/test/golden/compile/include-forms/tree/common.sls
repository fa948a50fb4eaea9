common_state:
  test.nop: []
