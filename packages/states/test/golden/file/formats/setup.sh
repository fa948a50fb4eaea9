R="$1"
printf "[old]\nx = 1\n" > "$R/same.ini"
