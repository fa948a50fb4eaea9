first:
  test.succeed_without_changes:
    - require_in:
      - sls: empty
    - watch_in:
      - sls: not-in-this-run
second:
  test.succeed_with_changes:
    - onchanges_in:
      - sls: only-includes
      - sls: app.more
    - onfail_in:
      - sls: empty
