mount --bind "$1/etc/init.d" /etc/init.d
for l in 0 1 2 3 4 5 6 S; do mount --bind "$1/etc/rc$l.d" "/etc/rc$l.d"; done
mount --bind "$1/etc/systemd-system" /etc/systemd/system
