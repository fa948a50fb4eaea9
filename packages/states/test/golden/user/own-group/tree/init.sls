# A new user whose `groups` lists only its own primary group is not made a member of it (Salt's
# chgroups sees the groups already match); with another group too, usermod -G lists both
# (users formula's auser, issue 21 real applies).
brine-og1:
  group.present:
    - gid: 4631
  user.present:
    - uid: 4631
    - gid: brine-og1
    - groups:
      - brine-og1
    - home: /nonexistent
    - createhome: False
brine-og2:
  group.present:
    - gid: 4632
  user.present:
    - uid: 4632
    - gid: brine-og2
    - groups:
      - brine-og2
      - brine-og1
    - home: /nonexistent
    - createhome: False
