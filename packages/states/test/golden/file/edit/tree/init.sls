replace-second:
  file.line:
    - name: /tmp/brine-golden/file-edit/line.txt
    - mode: replace
    - match: 'second'
    - content: 'second = 3'
insert-after:
  file.line:
    - name: /tmp/brine-golden/file-edit/line.txt
    - mode: insert
    - after: '^first'
    - content: 'inserted'
ensure-before:
  file.line:
    - name: /tmp/brine-golden/file-edit/line.txt
    - mode: ensure
    - before: '^third'
    - content: 'before-third'
ensure-again:
  file.line:
    - name: /tmp/brine-golden/file-edit/line.txt
    - mode: ensure
    - before: '^third'
    - content: 'before-third'
insert-end:
  file.line:
    - name: /tmp/brine-golden/file-edit/line.txt
    - mode: insert
    - location: end
    - content: 'last'
insert-start:
  file.line:
    - name: /tmp/brine-golden/file-edit/line.txt
    - mode: insert
    - location: start
    - content: 'zeroth'
delete-b:
  file.line:
    - name: /tmp/brine-golden/file-edit/del.txt
    - mode: delete
    - match: '^b'
delete-none:
  file.line:
    - name: /tmp/brine-golden/file-edit/del.txt
    - mode: delete
    - match: '^zzz'
ensure-between:
  file.line:
    - name: /tmp/brine-golden/file-edit/ens.txt
    - mode: ensure
    - after: begin
    - before: end
    - content: middle
line-missing-file:
  file.line:
    - name: /tmp/brine-golden/file-edit/none.txt
    - mode: ensure
    - content: x
line-create:
  file.line:
    - name: /tmp/brine-golden/file-edit/created.txt
    - mode: insert
    - location: start
    - content: hello
    - create: True
line-no-mode:
  file.line:
    - name: /tmp/brine-golden/file-edit/del.txt
    - content: x
comment-host:
  file.comment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: ^host
comment-again:
  file.comment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: ^host
comment-missing:
  file.comment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: ^nothing
comment-ignore:
  file.comment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: ^nothing
    - ignore_missing: True
uncomment-port:
  file.uncomment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: port
uncomment-again:
  file.uncomment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: port
uncomment-missing:
  file.uncomment:
    - name: /tmp/brine-golden/file-edit/cmt.conf
    - regex: nothing
comment-nofile:
  file.comment:
    - name: /tmp/brine-golden/file-edit/none.conf
    - regex: x
