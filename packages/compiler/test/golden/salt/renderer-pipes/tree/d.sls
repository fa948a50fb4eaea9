#!yamlex
d1:
  test.nop:
    - v: !aggregate [1]
    - w: 0o10
    - z: on
