# a new key in a config file that does not exist yet
domainname:
  sysctl.present:
    - name: kernel.domainname
    - value: brine.test
    - config: /tmp/brine-golden/sysctl-present/etc/sysctl.d/99-brine.conf
# the same again: already set
domainname-again:
  sysctl.present:
    - name: kernel.domainname
    - value: brine.test
    - config: /tmp/brine-golden/sysctl-present/etc/sysctl.d/99-brine.conf
# a key the config file has at another value
ip_forward:
  sysctl.present:
    - name: net.ipv4.ip_forward
    - value: 1
    - config: /tmp/brine-golden/sysctl-present/etc/sysctl.conf
# whitespace in a value (the kernel answers with tabs)
tcp_rmem:
  sysctl.present:
    - name: net.ipv4.tcp_rmem
    - value: 4096 87380 6291456
    - config: /tmp/brine-golden/sysctl-present/etc/sysctl.conf
tcp_rmem-again:
  sysctl.present:
    - name: net.ipv4.tcp_rmem
    - value: 4096   87380 6291456
    - config: /tmp/brine-golden/sysctl-present/etc/sysctl.conf
# a key that does not exist in /proc/sys
missing:
  sysctl.present:
    - name: net.ipv4.brine_no_such_key
    - value: 1
    - config: /tmp/brine-golden/sysctl-present/etc/sysctl.conf
