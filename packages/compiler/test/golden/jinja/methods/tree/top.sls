base:
  '*':
    - methods
