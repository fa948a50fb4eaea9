# An apt configuration whose only source is an empty flat repository on disk (no network).
R="$1"
mkdir -p "$R/etc/apt/sources.list.d" "$R/etc/apt/apt.conf.d" "$R/etc/apt/preferences.d" "$R/etc/apt/trusted.gpg.d" "$R/repo"
mkdir -p "$R/var/lib/apt/lists/partial" "$R/var/cache/apt/archives/partial"
: > "$R/repo/Packages"
echo "deb [trusted=yes] file:$R/repo ./" > "$R/etc/apt/sources.list"
