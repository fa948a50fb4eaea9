prepend-existing:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/existing.txt
    - text:
      - first line
      - second line
prepend-present:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/existing.txt
    - text: line b
prepend-whitespace:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/spaced.txt
    - text: x y
prepend-header-same:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/headed.txt
    - header: True
    - text:
      - '# header one'
      - '# header two'
prepend-header-new:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/unheaded.txt
    - header: True
    - text:
      - '# managed'
prepend-missing-file:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/new.txt
    - text: hello
prepend-makedirs:
  file.prepend:
    - name: /tmp/brine-golden/file-args-prepend/deep/er/new.txt
    - makedirs: True
    - text: hello
