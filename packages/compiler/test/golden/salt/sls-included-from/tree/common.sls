common_one:
  test.succeed_with_changes:
    - watch:
      - sls: web
