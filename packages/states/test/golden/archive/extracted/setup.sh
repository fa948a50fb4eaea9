# the archives as local files, a destination that already holds one of them, an if_missing marker
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/make-archives.sh" "$1/src"
mkdir -p "$1/present" "$1/marker"
tar -xzf "$1/src/app.tar.gz" -C "$1/present"
