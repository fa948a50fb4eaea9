o1:
  test.nop: []
o2:
  test.nop: []
