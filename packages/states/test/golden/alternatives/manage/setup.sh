# two programs to choose between, empty alternatives and admin dirs
mkdir -p "$1/opt" "$1/bin" "$1/alternatives" "$1/admin"
for p in vi-a vi-b vi-c; do printf '#!/bin/sh\necho %s\n' "$p" > "$1/opt/$p"; chmod 755 "$1/opt/$p"; done
