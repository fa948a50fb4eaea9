base:
  '*':
    - app
