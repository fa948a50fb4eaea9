base:
  '*':
    - motd
    - app
  'roles:web':
    - match: grain
    - web
