nullfun:
  test.nop: []
idstring: test.nop
twofuncs_sep:
  test.nop: []
  cmd.run:
    - name: echo hi
order_str:
  test.nop:
    - order: '5'
watch_plain_id:
  test.nop:
    - watch:
      - nullfun
names_dict:
  test.nop:
    - names:
      - n1:
        - foo: bar
      - n2
