# Salt's hosts module edits /etc/hosts: bind the case's own file over it in this mount namespace
mount --bind "$1/hosts" /etc/hosts
