numname:
  test.nop:
    - name: 123
boolarg:
  test.nop:
    - device: /dev/x
    - False
    - 42
    - null
    - [a, b]
names_not_strings:
  test.nop:
    - names:
      - 1
      - true
      - plain
