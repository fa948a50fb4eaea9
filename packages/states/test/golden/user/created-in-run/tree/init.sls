# Accounts this run creates, and states that name them before they exist (test=True predicts).
brine-cg1:
  group.present:
    - gid: 4611
brine-cu1:
  user.present:
    - uid: 4611
    - gid: brine-cg1
    - home: /nonexistent
    - createhome: False
brine-cu2:
  user.present:
    - uid: 4612
    - groups:
      - brine-cg1
    - home: /nonexistent
    - createhome: False
brine-cu3:
  user.present:
    - uid: 4613
    - optional_groups:
      - brine-cg1
      - brine-cg-never
    - home: /nonexistent
    - createhome: False
brine-cg2:
  group.present:
    - gid: 4621
    - members:
      - brine-cu1
brine-cu4:
  user.present:
    - uid: 4614
    - gid: brine-cg-never
    - home: /nonexistent
    - createhome: False
