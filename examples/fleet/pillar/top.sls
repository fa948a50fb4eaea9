base:
  '*':
    - common
  'role:web':
    - match: grain
    - web
  'db*':
    - db
