# overlay work dirs for /var/cache/debconf (see ns.sh); the answers start as Debian's
mkdir -p "$1/up" "$1/wk"
