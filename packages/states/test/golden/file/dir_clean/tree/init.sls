# file.directory clean: True keeps only what the states in its own require manage (matched by
# id or name; a required directory keeps its whole tree); other file states' files go.
early-unrequired:
  file.managed:
    - name: /tmp/brine-golden/file-dir_clean/clean/early.txt
    - contents: early
required-by-id:
  file.managed:
    - name: /tmp/brine-golden/file-dir_clean/clean/a.txt
    - contents: a
required-nested:
  file.managed:
    - name: /tmp/brine-golden/file-dir_clean/clean/sub/c.txt
    - contents: c
required-dir:
  file.directory:
    - name: /tmp/brine-golden/file-dir_clean/clean/keepdir
required-in:
  file.managed:
    - name: /tmp/brine-golden/file-dir_clean/clean/in.txt
    - contents: in
    - require_in:
      - file: clean-dir
clean-dir:
  file.directory:
    - name: /tmp/brine-golden/file-dir_clean/clean
    - clean: True
    - exclude_pat: '*.log'
    - require:
      - file: required-by-id
      - file: /tmp/brine-golden/file-dir_clean/clean/sub/c.txt
      - file: required-dir
late-unrequired:
  file.managed:
    - name: /tmp/brine-golden/file-dir_clean/clean/late.txt
    - contents: late
clean-unchanged:
  file.directory:
    - name: /tmp/brine-golden/file-dir_clean/tidy
    - clean: True
clean-mode:
  file.directory:
    - name: /tmp/brine-golden/file-dir_clean/moded
    - mode: '0700'
    - clean: True
clean-exclude-list:
  file.directory:
    - name: /tmp/brine-golden/file-dir_clean/listex
    - clean: True
    - exclude_pat:
      - '*.log'
      - 'E@\.tmp$'
