# file.replace keeps the file as it was in <name>.bak unless told otherwise (users formula's
# /etc/pam.d/sshd edit, issue 21 real applies); nothing is kept when nothing changed.
default-backup:
  file.replace:
    - name: /tmp/brine-golden/file-replace/default.conf
    - pattern: '^@include common-auth'
    - repl: "auth extra.so\n@include common-auth"
no-backup:
  file.replace:
    - name: /tmp/brine-golden/file-replace/none.conf
    - pattern: '^@include common-auth'
    - repl: 'changed'
    - backup: False
custom-suffix:
  file.replace:
    - name: /tmp/brine-golden/file-replace/custom.conf
    - pattern: 'x.so'
    - repl: 'y.so'
    - backup: .orig
no-change:
  file.replace:
    - name: /tmp/brine-golden/file-replace/same.conf
    - pattern: 'not there'
    - repl: 'whatever'
