base:
  '*':
    - dump
