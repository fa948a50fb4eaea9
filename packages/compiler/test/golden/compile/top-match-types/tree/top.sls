base:
  '*':
    - common
  'web*':
    - web
  'db*':
    - db
  '^web\d\.':
    - match: pcre
    - pcre_hit
  'a,web1.example.com,b':
    - match: list
    - list_hit
  'os:Ubuntu':
    - match: grain
    - grain_hit
  'roles:c.*':
    - match: grain_pcre
    - grain_pcre_hit
  'G@os:Ubuntu and not E@db.*':
    - match: compound
    - compound_hit
  '10.0.0.0/8':
    - match: ipcidr
    - cidr_hit
  'os:CentOS':
    - match: grain
    - never
