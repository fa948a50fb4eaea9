set-one:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/sshd
    - key: PermitRootLogin
    - value: 'no'
    - separator: ' '
set-same:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/sshd
    - key: Port
    - value: 22
    - separator: ' '
uncomment-dns:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/sshd
    - key_values:
        UseDNS: 'no'
        Banner: /etc/issue
    - separator: ' '
    - uncomment: '#'
    - append_if_not_found: True
indented:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/sshd
    - key: Indented
    - value: 'yes'
    - separator: ' '
count-all:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/kv.conf
    - key_values:
        a: 9
        b: 2
    - count: -1
prepend:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/pre.conf
    - key_values: {y: 2, z: true}
    - prepend_if_not_found: True
missing:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/none.conf
    - key: a
    - value: 1
missing-ok:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/none.conf
    - key: a
    - value: 1
    - ignore_if_missing: True
create:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/created.conf
    - key: a
    - value: 1
    - create_if_missing: True
nothing:
  file.keyvalue:
    - name: /tmp/brine-golden/file-keyvalue/pre.conf
