# Fixtures of file.managed's check_cmd: files the checks must leave alone when they fail, and a
# script that accepts the file it is given only when it holds a line "good".
R="$1"
printf 'old\n' > "$R/fail-existing.conf"; chmod 0640 "$R/fail-existing.conf"
printf 'old\n' > "$R/pass-existing.conf"; chmod 0640 "$R/pass-existing.conf"
printf 'old\n' > "$R/script-bad-existing.conf"; chmod 0644 "$R/script-bad-existing.conf"
printf 'same\n' > "$R/unchanged.conf"; chmod 0644 "$R/unchanged.conf"
printf 'good\n' > "$R/mode-only.conf"; chmod 0644 "$R/mode-only.conf"
printf 'good\n' > "$R/mode-only-bad.conf"; chmod 0644 "$R/mode-only-bad.conf"
cat > "$R/check.sh" <<'SH'
# accepts the file named by its last argument only when it holds a line "good"
for f in "$@"; do :; done
if grep -qx good "$f"; then echo "ok"; exit 0; fi
echo "rejected: no good line"; echo "check failed" >&2; exit 3
SH
cat > "$R/ext.sh" <<'SH'
# accepts only a file whose name ends in .conf (tmp_ext)
case "$1" in *.conf) exit 0 ;; esac
echo "not a .conf name"; exit 1
SH
