include:
  - app
  - web
  - common
after_app:
  test.succeed_without_changes:
    - require:
      - sls: app
after_web:
  test.succeed_without_changes:
    - require:
      - sls: web
watch_web:
  test.succeed_without_changes:
    - watch:
      - sls: web
on_web:
  test.succeed_without_changes:
    - onchanges:
      - sls: web
on_app_conf:
  test.succeed_without_changes:
    - onfail:
      - sls: app.conf
