# Fixtures: a directory with stale files and folders, files that required states manage, a kept
# log (exclude_pat), an empty tidy directory and one whose mode and contents change.
R="$1"
mkdir -p "$R/clean/sub/deeper" "$R/clean/keepdir/inner" "$R/clean/old/x" "$R/tidy" "$R/moded/gone"
printf 'stale\n' > "$R/clean/stale.txt"; printf 'old a\n' > "$R/clean/a.txt"
printf 'd\n' > "$R/clean/sub/d.txt"; printf 'e\n' > "$R/clean/sub/deeper/e.txt"
printf 'k\n' > "$R/clean/keepdir/inner/k.txt"; printf 'y\n' > "$R/clean/old/x/y.txt"
printf 'log\n' > "$R/clean/keep.log"; printf 'z\n' > "$R/moded/z.txt"
chmod 0755 "$R/moded"
mkdir -p "$R/listex"; printf 'l\n' > "$R/listex/a.log"; printf 't\n' > "$R/listex/b.tmp"; printf 'c\n' > "$R/listex/c.txt"
