include:
  - common
web_b:
  test.nop: []
