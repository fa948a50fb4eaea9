sub_a:
  test.succeed_with_changes: []
sub_b:
  test.succeed_without_changes:
    - require:
      - sls: app
sub_c:
  test.succeed_without_changes:
    - require:
      - test: sub_a
