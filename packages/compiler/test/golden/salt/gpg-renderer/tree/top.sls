base:
  '*':
    - secret
    - direct
