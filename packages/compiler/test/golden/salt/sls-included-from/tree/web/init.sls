include:
  - web.site
web_own:
  test.succeed_without_changes
