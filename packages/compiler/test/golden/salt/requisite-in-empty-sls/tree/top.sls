base:
  '*':
    - app
    - empty
    - only-includes
    - app.more
