base:
  '*':
    - eof
