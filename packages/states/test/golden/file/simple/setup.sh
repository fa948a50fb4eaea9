R="$1"
printf 'src\n' > "$R/src.txt"; printf 'old\n' > "$R/exists.txt"; printf 'mv\n' > "$R/tomove.txt"
printf 'mv2\n' > "$R/tomove2.txt"; printf 'blocker\n' > "$R/blocked.txt"; mkdir -p "$R/dir"
printf 'same\n' > "$R/same.txt"; printf 'same\n' > "$R/same-copy.txt"
