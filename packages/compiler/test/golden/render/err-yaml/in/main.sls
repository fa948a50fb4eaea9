a:
  test.nop:
   - name: x
  - bad
