shared:
  test.nop:
    - name: from b
