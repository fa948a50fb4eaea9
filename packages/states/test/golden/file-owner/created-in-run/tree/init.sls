# File states owned by an account this run creates: test=True warns and predicts (Salt's
# _check_user), a real apply creates the account first.
brine-cg3:
  group.present:
    - gid: 4631
brine-cu5:
  user.present:
    - uid: 4631
    - gid: brine-cg3
    - home: /nonexistent
    - createhome: False
/tmp/brine-golden/file-owner-created-in-run/dir:
  file.directory:
    - user: brine-cu5
    - group: brine-cg3
    - mode: '0750'
/tmp/brine-golden/file-owner-created-in-run/existing:
  file.directory:
    - user: brine-cu5
    - group: brine-cg3
/tmp/brine-golden/file-owner-created-in-run/file:
  file.managed:
    - contents: hello
    - user: brine-cu5
    - group: brine-cg3
    - mode: '0640'
/tmp/brine-golden/file-owner-created-in-run/existing-file:
  file.managed:
    - contents: old
    - user: brine-cu5
/tmp/brine-golden/file-owner-created-in-run/never-owned:
  file.managed:
    - contents: x
    - user: brine-cu-never
