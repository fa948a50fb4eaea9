same:
  ssh_auth.present:
    - user: brinessh1
    - name: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGF29Egmio6maAuKUYUXhJ2AZVatCnZKp8kIKQ54dw9b one@brine
new-full-line:
  ssh_auth.present:
    - user: brinessh1
    - name: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFPUpT1VZVWYvfMXj4nqAqAzQhF9N0ZtZowa9olLtas+ three@brine
new-key-args:
  ssh_auth.present:
    - user: brinessh1
    - name: AAAAC3NzaC1lZDI1NTE5AAAAIP/koTami+Rb7ULfAMOY95i4izzyyoU580WwcpchiHuk
    - enc: ed25519
    - comment: four@brine
    - options:
      - no-pty
      - from="10.0.0.0/8"
comment-changed:
  ssh_auth.present:
    - user: brinessh1
    - name: AAAAC3NzaC1lZDI1NTE5AAAAIGF29Egmio6maAuKUYUXhJ2AZVatCnZKp8kIKQ54dw9b
    - enc: ssh-ed25519
    - comment: renamed@brine
options-changed:
  ssh_auth.present:
    - user: brinessh1
    - name: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF51rWWoIW6qKzmNRQKdfGf8D14SNp36BIumhQcv92MW two@brine
invalid:
  ssh_auth.present:
    - user: brinessh1
    - name: not!base64
    - enc: ed25519
other-config:
  ssh_auth.present:
    - user: brinessh1
    - name: AAAAC3NzaC1lZDI1NTE5AAAAIK4X0E5pgl6Y3mZdAWCQ/f04f95n655kthRu9yMu1LIu
    - enc: ed25519
    - config: /tmp/brine-golden/ssh_auth-manage/other/keys
remove:
  ssh_auth.absent:
    - user: brinessh1
    - name: AAAAC3NzaC1lZDI1NTE5AAAAIFPUpT1VZVWYvfMXj4nqAqAzQhF9N0ZtZowa9olLtas+
    - enc: ed25519
remove-full-line:
  ssh_auth.absent:
    - user: brinessh1
    - name: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF51rWWoIW6qKzmNRQKdfGf8D14SNp36BIumhQcv92MW two@brine
remove-again:
  ssh_auth.absent:
    - user: brinessh1
    - name: AAAAC3NzaC1lZDI1NTE5AAAAIFPUpT1VZVWYvfMXj4nqAqAzQhF9N0ZtZowa9olLtas+
