include:
  - inc.x
shared:
  test.nop: []
only_a:
  test.nop: []
