nop:
  test.nop:
    - anything: goes
succeed-quiet:
  test.succeed_without_changes:
    - comment: all good
succeed-default:
  test.succeed_without_changes
fail-quiet:
  test.fail_without_changes
fail-comment:
  test.fail_without_changes:
    - comment: broke
succeed-changes:
  test.succeed_with_changes
fail-changes:
  test.fail_with_changes
configurable-default:
  test.configurable_test_state
configurable-no-changes:
  test.configurable_test_state:
    - changes: False
    - result: True
    - comment: steady
configurable-fail:
  test.configurable_test_state:
    - changes: True
    - result: False
    - comment: bad
    - warnings: careful
configurable-invalid:
  test.configurable_test_state:
    - changes: sometimes
notify:
  test.show_notification:
    - text: hello there
