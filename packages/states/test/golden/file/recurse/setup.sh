# Fixtures: a destination already in the right state, and one with stale files for clean.
R="$1"; T="$(dirname "$0")/tree/files/conf"
mkdir -p "$R/same/sub" "$R/clean/old" "$R/clean/sub"
cp "$T/a.txt" "$R/same/a.txt"; cp "$T/sub/b.txt" "$R/same/sub/b.txt"; cp "$T/skip.log" "$R/same/skip.log"
printf 'stale\n' > "$R/clean/stale.txt"; printf 'x\n' > "$R/clean/old/x"; printf 'changed\n' > "$R/clean/a.txt"
printf 'keep\n' > "$R/clean/keep.log"
