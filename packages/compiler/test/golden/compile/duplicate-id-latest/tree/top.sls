base:
  '*':
    - a
    - b
    - c
