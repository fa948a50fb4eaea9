create:
  group.present:
    - name: brine-gx1
    - gid: 4501
create-again:
  group.present:
    - name: brine-gx1
    - gid: 4501
change-gid:
  group.present:
    - name: brine-gx1
    - gid: 4502
members:
  group.present:
    - name: brine-gx1
    - members:
      - brine-gm1
      - brine-gm2
addusers:
  group.present:
    - name: brine-gx2
    - gid: 4503
    - addusers:
      - brine-gm1
delusers:
  group.present:
    - name: brine-gx1
    - delusers:
      - brine-gm2
unknown-member:
  group.present:
    - name: brine-gx1
    - members:
      - brine-no-such-user
system-group:
  group.present:
    - name: brine-gx3
    - gid: 4504
    - system: True
remove:
  group.absent:
    - name: brine-gx2
remove-again:
  group.absent:
    - name: brine-gx2
remove-gx3:
  group.absent:
    - name: brine-gx3
