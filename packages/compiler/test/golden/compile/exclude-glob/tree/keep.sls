keep_yes:
  test.nop: []
keep_not:
  test.nop: []
