# file.managed's failures and their comments ("Unable to manage file: " where Salt's
# source_list or get_managed raises), and replace: False on an existing file.
list-none-found:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/list-none-found
    - source:
      - salt://nope1.txt
      - salt://nope2.txt
single-not-found:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/single-not-found
    - source: salt://nope.txt
contents-and-source:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/contents-and-source
    - source: salt://plain.txt
    - contents: x
local-missing:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/local-missing
    - source: /tmp/brine-golden/file-manage_errors/does-not-exist
relative-source:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/relative-source
    - source: relative/path.txt
bad-scheme:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/bad-scheme
    - source: foo://bar/baz
replace-false-same-mode:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/replace-false-same
    - contents: new
    - replace: False
replace-false-mode:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/replace-false-mode
    - source: salt://plain.txt
    - mode: '0600'
    - replace: False
replace-false-new:
  file.managed:
    - name: /tmp/brine-golden/file-manage_errors/replace-false-new
    - source: salt://plain.txt
    - replace: False
