never_state:
  test.nop: []
