include:
  - app.files
conf_own:
  test.succeed_without_changes:
    - require:
      - sls: app
