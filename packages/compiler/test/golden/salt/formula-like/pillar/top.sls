base:
  'G@os_family:Debian and anch*':
    - webapp
