base:
  '*':
    - args
