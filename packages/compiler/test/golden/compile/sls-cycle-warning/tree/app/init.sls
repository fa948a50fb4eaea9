include:
  - app.sub
top_state:
  test.succeed_without_changes:
    - require:
      - sls: app.sub
