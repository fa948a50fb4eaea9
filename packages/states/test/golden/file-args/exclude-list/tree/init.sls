recurse-exclude-list:
  file.recurse:
    - name: /tmp/brine-golden/file-args-exclude-list/copy
    - source: salt://src
    - exclude_pat:
      - '*.bak'
      - E@\.tmp$
recurse-exclude-string:
  file.recurse:
    - name: /tmp/brine-golden/file-args-exclude-list/copy2
    - source: salt://src
    - exclude_pat: '*.bak'
