# a repository whose config already has a multivar and a plain key
git init -q -b main "$1/repo"
git -C "$1/repo" config user.name old
git -C "$1/repo" config --add remote.origin.push refs/heads/a
git -C "$1/repo" config --add remote.origin.push refs/heads/b
