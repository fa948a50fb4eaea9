a:
  test.nop: []
b:
  test.nop: []
a:
  test.nop: []
