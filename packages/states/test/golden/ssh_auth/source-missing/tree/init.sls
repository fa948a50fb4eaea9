# ssh_auth.absent with a source the file server does not have: Salt finds nothing to remove and
# succeeds with an empty comment (users formula's deleted-user key, issue 21 real applies).
absent-missing-source:
  ssh_auth.absent:
    - name: absent-missing-source
    - user: brinessh2
    - source: salt://keys/deleteduser.id_rsa.pub
