# an upstream repository with two commits on main, a tag v1 on the first, and a branch dev
export GIT_AUTHOR_NAME=Brine GIT_AUTHOR_EMAIL=brine@example.com GIT_COMMITTER_NAME=Brine GIT_COMMITTER_EMAIL=brine@example.com
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
u="$1/upstream"
git init -q -b main "$u"
echo one > "$u/file"; git -C "$u" add file; git -C "$u" commit -q -m one; git -C "$u" tag v1
echo two > "$u/file"; git -C "$u" commit -q -am two
git -C "$u" branch dev
git -C "$u" checkout -q dev; echo dev > "$u/dev"; git -C "$u" add dev; git -C "$u" commit -q -m dev; git -C "$u" checkout -q main
