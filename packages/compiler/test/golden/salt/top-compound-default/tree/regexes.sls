regexes_state:
  test.nop: []
