web_a:
  test.nop: []
