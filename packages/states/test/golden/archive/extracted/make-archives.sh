# Deterministic archives (fixed mtimes, owners and order): usage: make-archives.sh DIR
set -e
mkdir -p "$1"; out="$(cd "$1" && pwd)"
s="$(mktemp -d)"
mkdir -p "$s/app/bin" "$s/flat"
printf 'hello\n' > "$s/app/README"; printf '#!/bin/sh\necho app\n' > "$s/app/bin/run"; chmod 755 "$s/app/bin/run"
ln -s README "$s/app/README.link"
printf 'a\n' > "$s/flat/a"; printf 'b\n' > "$s/flat/b"
t() { tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$1" -cf - "${@:2}"; }
t "$s" app | gzip -n > "$out/app.tar.gz"
t "$s/flat" a b | gzip -n > "$out/flat.tar.gz"
(cd "$s" && TZ=UTC find app -exec touch -h -d @0 {} + && rm -f "$out/app.zip" && zip -qrX -y "$out/app.zip" app)
rm -rf "$s"
