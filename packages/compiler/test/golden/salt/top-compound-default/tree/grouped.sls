grouped_state:
  test.nop: []
