alpha-present:
  host.present:
    - name: alpha
    - ip: 10.0.0.1
new-host:
  host.present:
    - name: epsilon
    - ip: 10.0.0.9
alias-on-existing-ip:
  host.present:
    - name: beta2
    - ip: 10.0.0.2
with-comment:
  host.present:
    - name: zeta
    - ip: 10.0.0.10
    - comment: zeta box
comment-changed:
  host.present:
    - name: beta
    - ip: 10.0.0.2
    - comment: renamed comment
alpha-elsewhere:
  host.present:
    - name: alpha
    - ip: 10.0.0.5
alpha-clean:
  host.present:
    - name: gamma
    - ip: 10.0.0.7
    - clean: True
bad-ip:
  host.present:
    - name: bogus
    - ip: 999.1.1.1
gone:
  host.absent:
    - name: delta
    - ip: 10.0.0.3
gone-again:
  host.absent:
    - name: delta
    - ip:
      - 10.0.0.3
      - 10.0.0.4
only-same:
  host.only:
    - name: 127.0.0.1
    - hostnames: localhost
only-change:
  host.only:
    - name: 10.0.0.1
    - hostnames:
      - alpha.lan
      - alpha
      - a1
only-new:
  host.only:
    - name: 10.0.0.20
    - hostnames: [one, two]
only-clear:
  host.only:
    - name: 10.0.0.20
    - hostnames: []
