# an upstream repository with one commit, and one identity file of the two the states name
export GIT_AUTHOR_NAME=Brine GIT_AUTHOR_EMAIL=brine@example.com GIT_COMMITTER_NAME=Brine GIT_COMMITTER_EMAIL=brine@example.com
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
u="$1/upstream"
git init -q -b main "$u"
echo one > "$u/file"; git -C "$u" add file; git -C "$u" commit -q -m one
echo 'not a key' > "$1/present_key"
