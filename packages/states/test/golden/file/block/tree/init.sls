replace-block:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/marked.txt
    - marker_start: '# BEGIN'
    - marker_end: '# END'
    - content: |
        new one
        new two
same-block:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/marked.txt
    - marker_start: '# BEGIN'
    - marker_end: '# END'
    - content: |
        new one
        new two
append-block:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/plain.txt
    - content: appended
    - append_if_not_found: True
prepend-block:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/pre.txt
    - marker_start: '<<'
    - marker_end: '>>'
    - content: pre
    - prepend_if_not_found: True
no-markers:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/nom.txt
    - content: x
missing-file:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/none.txt
    - content: x
acc-one:
  file.accumulated:
    - filename: /tmp/brine-golden/file-block/acc.txt
    - text: from one
    - require_in:
      - file: acc-block
acc-two:
  file.accumulated:
    - filename: /tmp/brine-golden/file-block/acc.txt
    - text:
      - from two
      - and more
    - require_in:
      - file: acc-block
acc-block:
  file.blockreplace:
    - name: /tmp/brine-golden/file-block/acc.txt
    - marker_start: '# acc start'
    - marker_end: '# acc end'
    - append_if_not_found: True
orphan:
  file.accumulated:
    - filename: /tmp/brine-golden/file-block/acc.txt
    - text: lost
