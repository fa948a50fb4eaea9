ufw-on:
  ufw.enabled: []

incoming:
  ufw.default_incoming:
    - default: deny

outgoing:
  ufw.default_outgoing:
    - default: deny

from-lan:
  ufw.allowed:
    - from_addr: 10.0.0.0/8

from-lan-again:
  ufw.allowed:
    - from_addr: 10.0.0.0/8

ssh-in:
  ufw.allow:
    - protocol: tcp
    - to_port: '22'
    - comment: '"ssh from anywhere"'

bad-host:
  ufw.deny:
    - from_addr: 192.0.2.7

ssh-limit:
  ufw.limit:
    - protocol: tcp
    - to_port: '2222'

loopback:
  ufw.allowed:
    - interface: lo

any-port:
  ufw.allowed:
    - from_addr: 198.51.100.0/24
    - to_port: '*'
    - from_port: '53'
    - protocol: udp

broken:
  ufw.allowed:
    - protocol: nosuchproto
    - to_port: '80'
