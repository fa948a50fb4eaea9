# the first declaration: a includes it
shared:
  test.nop: []
