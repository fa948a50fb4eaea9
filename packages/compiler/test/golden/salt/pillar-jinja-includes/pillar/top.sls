base:
  'G@os_family:Debian':
    - app
  'not anchor':
    - never
  'anch*':
    - common.*
