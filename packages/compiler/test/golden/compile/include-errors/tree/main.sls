include:
  - missing.thing
  - ...way.up
ok:
  test.nop: []
