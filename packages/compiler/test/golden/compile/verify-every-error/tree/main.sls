two_funcs:
  pkg:
    - installed
    - removed
no_func:
  pkg:
    - name: vim
bad_arg:
  test.nop:
    - a: 1
      b: 2
bad_req:
  test.nop:
    - require: test
bad_req_item:
  test.nop:
    - require:
      - pkg.installed: vim
bad_names:
  test.nop:
    - names: vim
bad_order:
  test.nop:
    - order: soon
not_a_list:
  test.nop:
    name: x
not_a_dict: 42
typo:
  test.nop:
    - requires:
      - test: bad_arg
