base:
  'not web*':
    - not_web
  'G@os_family:Debian and anch*':
    - debian_anchor
  'G@kernel:Windows or L@other,anchor':
    - listed
  'web* or G@os:RedHat':
    - never
  'X@anchor':
    - engine_like_glob
  '( anchor or web1 ) and not G@kernel:Darwin':
    - grouped
  'anchor':
    - plain
  'anchor and':
    - malformed
  'P@os:Deb.* and not E@^web':
    - regexes
