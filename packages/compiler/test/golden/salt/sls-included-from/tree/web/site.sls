include:
  - common
site_changed:
  test.succeed_with_changes
