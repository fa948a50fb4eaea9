base:
  '*':
    - app
    - db
