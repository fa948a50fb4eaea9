# Salt's apt functions read and write /etc/apt and refresh /var/lib/apt/lists: bind the case's
# own dirs over them in this mount namespace
mkdir -p "$1/var/lib/apt/lists/partial" "$1/var/cache/apt/archives/partial"
mount --bind "$1/etc/apt" /etc/apt
mount --bind "$1/var/lib/apt/lists" /var/lib/apt/lists
mount --bind "$1/var/cache/apt" /var/cache/apt
