base:
  '*':
    - x
