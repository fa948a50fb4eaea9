# Salt's timezone module works on /etc: the case's files over the system's in an overlay (Salt
# unlinks /etc/localtime, which a bind mount would refuse), and timedatectl hidden (no systemd
# here), so Salt takes its Debian file path.
mount -t overlay overlay -o "lowerdir=$1/etc:/etc,upperdir=$1/up,workdir=$1/wk" /etc
printf '' > "$1/no-timedatectl"
mount --bind "$1/no-timedatectl" /usr/bin/timedatectl
