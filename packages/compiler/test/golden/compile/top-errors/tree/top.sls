base:
  '*':
    - a
  'x':
    - match: nosuch
    - b
  'G@os and':
    - match: compound
    - c
  'bad':
    oops: 1
