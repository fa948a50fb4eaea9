dev:
  '*':
    - dev_ignored_because_base_defines_dev
qa:
  '*':
    - qa_ignored_not_own_env
