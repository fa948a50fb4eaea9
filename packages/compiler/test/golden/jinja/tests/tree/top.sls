base:
  '*':
    - tests
