# upstream with commits one..two, a clone made at one (upstream moved on), a dirty clone
export GIT_AUTHOR_NAME=Brine GIT_AUTHOR_EMAIL=brine@example.com GIT_COMMITTER_NAME=Brine GIT_COMMITTER_EMAIL=brine@example.com
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
u="$1/upstream"
git init -q -b main "$u"
echo one > "$u/file"; git -C "$u" add file; git -C "$u" commit -q -m one
git clone -q "file://$u" "$1/behind"
git clone -q "file://$u" "$1/current"
echo two > "$u/file"; git -C "$u" commit -q -am two
git clone -q "file://$u" "$1/dirty"
echo local > "$1/dirty/file"
git clone -q "file://$u" "$1/ahead"
echo mine > "$1/ahead/file"; git -C "$1/ahead" commit -q -am mine
