# an archive whose app/README lies in the destination as a directory (the incorrect type), once
# for force: True and once without it; test=True must leave both destinations as they are
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/../extracted/make-archives.sh" "$1/src"
mkdir -p "$1/forced/app/README" "$1/refused/app/README"
printf 'keep\n' > "$1/forced/app/README/inside"; printf 'keep\n' > "$1/refused/app/README/inside"
