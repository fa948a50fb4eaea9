mount --bind "$1/etc-ufw" /etc/ufw
mount --bind "$1/default-ufw" /etc/default/ufw
