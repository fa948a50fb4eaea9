create-with-gecos:
  user.present:
    - name: brine-gu1
    - uid: 4201
    - gid: brine-gg1
    - shell: /bin/sh
    - fullname: Golden User
    - roomnumber: '101'
    - workphone: '555-1'
    - createhome: False
    - home: /nonexistent/brine-gu1
change-shell-and-phone:
  user.present:
    - name: brine-gu1
    - shell: /bin/bash
    - fullname: Golden User
    - homephone: '555-2'
    - other: 'desk 7'
    - createhome: False
    - home: /nonexistent/brine-gu1
unchanged:
  user.present:
    - name: brine-gu1
    - shell: /bin/bash
    - createhome: False
    - home: /nonexistent/brine-gu1
uid-change-refused:
  user.present:
    - name: brine-gu1
    - uid: 4242
    - createhome: False
    - home: /nonexistent/brine-gu1
uid-change-allowed:
  user.present:
    - name: brine-gu1
    - uid: 4243
    - allow_uid_change: True
    - createhome: False
    - home: /nonexistent/brine-gu1
join-group:
  user.present:
    - name: brine-gu1
    - groups:
      - brine-gg3
    - createhome: False
    - home: /nonexistent/brine-gu1
missing-group:
  user.present:
    - name: brine-gu2
    - groups:
      - brine-no-such-group
    - createhome: False
system-user:
  user.present:
    - name: brine-gu2
    - uid: 4202
    - gid: brine-gg2
    - system: True
    - createhome: False
    - home: /nonexistent/brine-gu2
remove-gu2:
  user.absent:
    - name: brine-gu2
remove-gu2-again:
  user.absent:
    - name: brine-gu2
gid-change-refused:
  user.present:
    - name: brine-gu1
    - gid: brine-gg2
    - createhome: False
    - home: /nonexistent/brine-gu1
