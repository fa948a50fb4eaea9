mount --bind "$1/dpkg" /var/lib/dpkg
mount --bind "$1/lists" /var/lib/apt/lists
mount --bind "$1/cache" /var/cache/apt
mount --bind "$1/sources.list.d" /etc/apt/sources.list.d
