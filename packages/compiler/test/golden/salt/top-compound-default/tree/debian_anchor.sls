debian_anchor_state:
  test.nop: []
