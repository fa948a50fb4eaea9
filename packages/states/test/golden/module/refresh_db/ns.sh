# apt-get update reads /etc/apt and writes /var/lib/apt/lists: the case's own, in this mount
# namespace (never the host's: no root given, no mounts, and the commands do not run)
[ -n "$1" ] && [ -d "$1/etc/apt" ] || { echo "ns.sh: no case root" >&2; exit 1; }
mount --bind "$1/etc/apt" /etc/apt
mount --bind "$1/var/lib/apt/lists" /var/lib/apt/lists
mount --bind "$1/var/cache/apt" /var/cache/apt
