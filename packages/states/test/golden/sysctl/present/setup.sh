# an existing config file with one key at another value and a comment
mkdir -p "$1/etc"
printf '# kernel settings\nnet.ipv4.ip_forward = 0\nkernel.domainname=old.test\n' > "$1/etc/sysctl.conf"
