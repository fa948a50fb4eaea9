# Salt expands ~ and ~user in file names (os.path.expanduser); root's home is /root.
absent-tilde-user:
  file.absent:
    - name: ~root/brine-i21-no-such-file
missing-tilde-user:
  file.missing:
    - name: ~root/brine-i21-no-such-file
exists-tilde-user:
  file.exists:
    - name: ~root/brine-i21-no-such-file
