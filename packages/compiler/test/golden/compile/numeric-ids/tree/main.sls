# IDs that look like numbers keep the order they are written in, as in Salt.
ssh:
  test.nop: []
22:
  test.nop: []
8080:
  test.nop: []
'443':
  test.nop: []
last:
  test.nop: []
