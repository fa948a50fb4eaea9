base:
  '*':
    - scoping
