# an apt dir with one existing list file (two entries) and an empty sources.list.d otherwise
mkdir -p "$1/etc/apt/sources.list.d" "$1/etc/apt/trusted.gpg.d" "$1/etc/apt/keyrings" "$1/etc/apt/apt.conf.d" "$1/etc/apt/preferences.d"
cat > "$1/etc/apt/sources.list.d/existing.list" <<'LIST'
deb http://deb.example.invalid/debian bookworm main
deb-src http://deb.example.invalid/debian bookworm main contrib
LIST
