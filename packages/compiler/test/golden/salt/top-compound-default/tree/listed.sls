listed_state:
  test.nop: []
