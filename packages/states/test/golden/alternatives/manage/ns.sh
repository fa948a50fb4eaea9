# Salt's alternatives module always uses /etc/alternatives and dpkg's admin dir: bind the
# case's own dirs over them in this mount namespace
mount --bind "$1/alternatives" /etc/alternatives
mount --bind "$1/admin" /var/lib/dpkg/alternatives
