a:
  test.nop:
    - order: last
b:
  test.nop:
    - order: -1
c:
  test.nop:
    - order: 20000
d:
  test.nop: []
e:
  test.nop:
    - order: first
f:
  test.nop:
    - order: 20000
    - name: aaa
