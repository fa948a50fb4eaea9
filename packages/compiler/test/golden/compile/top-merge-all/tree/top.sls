base:
  '*':
    - a
    - b
