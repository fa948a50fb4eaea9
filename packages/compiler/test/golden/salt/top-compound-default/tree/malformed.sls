malformed_state:
  test.nop: []
