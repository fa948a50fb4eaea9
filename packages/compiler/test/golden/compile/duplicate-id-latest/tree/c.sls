

shared:
  test.nop:
    - name: from c
