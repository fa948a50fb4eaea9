a:
  test.nop:
    - name: {{ missing_var }}
