add-alpha:
  ssh_known_hosts.present:
    - name: alpha
    - key: AAAAC3NzaC1lZDI1NTE5AAAAIF7YzyQaBz5ePLJGEysBXZcvURujRyUhIUvloxM0CKpB
    - enc: ssh-ed25519
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
    - hash_known_hosts: False
alpha-again:
  ssh_known_hosts.present:
    - name: alpha
    - key: AAAAC3NzaC1lZDI1NTE5AAAAIF7YzyQaBz5ePLJGEysBXZcvURujRyUhIUvloxM0CKpB
    - enc: ssh-ed25519
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
    - hash_known_hosts: False
update-beta:
  ssh_known_hosts.present:
    - name: beta
    - key: AAAAC3NzaC1lZDI1NTE5AAAAIK0RBqcVNRlm+3M0P7MNhnnOeRo050qZ54bIcH86NWNF
    - enc: ssh-ed25519
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
    - hash_known_hosts: False
relative-config:
  ssh_known_hosts.present:
    - name: alpha
    - key: AAAAC3NzaC1lZDI1NTE5AAAAIF7YzyQaBz5ePLJGEysBXZcvURujRyUhIUvloxM0CKpB
    - enc: ssh-ed25519
    - config: known_hosts
key-and-fingerprint:
  ssh_known_hosts.present:
    - name: alpha
    - key: AAAAC3NzaC1lZDI1NTE5AAAAIF7YzyQaBz5ePLJGEysBXZcvURujRyUhIUvloxM0CKpB
    - fingerprint: 'aa:bb'
    - enc: ssh-ed25519
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
    - hash_known_hosts: False
fingerprint-unreachable:
  ssh_known_hosts.present:
    - name: no-such-host.invalid
    - fingerprint: 'aa:bb'
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
remove-delta:
  ssh_known_hosts.absent:
    - name: delta
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
delta-gone:
  ssh_known_hosts.absent:
    - name: delta
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
add-gamma-hashed:
  ssh_known_hosts.present:
    - name: gamma
    - key: AAAAC3NzaC1lZDI1NTE5AAAAIAXjSz060IQqKFdzyOOpMULgHx5xHcolN7gIVYA+Ktcd
    - enc: ssh-ed25519
    - config: /tmp/brine-golden/ssh_known_hosts-known-hosts/known_hosts
