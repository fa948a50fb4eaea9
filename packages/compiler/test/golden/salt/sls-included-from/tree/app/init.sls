include:
  - .conf
  - common
app_own:
  test.succeed_without_changes:
    - require:
      - sls: app.conf
