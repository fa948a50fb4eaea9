plain_state:
  test.nop: []
