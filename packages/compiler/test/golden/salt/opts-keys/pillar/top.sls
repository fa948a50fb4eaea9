base:
  '*':
    - p
