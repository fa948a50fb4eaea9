files_changed:
  test.succeed_with_changes
files_failed:
  test.fail_without_changes
