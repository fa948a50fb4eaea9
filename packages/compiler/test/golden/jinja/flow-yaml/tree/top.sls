base:
  '*':
    - flow
