base:
  '*':
    - seen
