base:
  '*':
    - ordered
