include:
  - app
outside:
  test.succeed_without_changes:
    - require:
      - sls: app
