base:
  '*':
    - o
