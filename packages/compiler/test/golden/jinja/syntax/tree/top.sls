base:
  '*':
    - syntax
