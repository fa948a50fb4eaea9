base:
  '*':
    - imports
