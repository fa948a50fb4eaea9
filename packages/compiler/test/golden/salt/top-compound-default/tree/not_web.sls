not_web_state:
  test.nop: []
