# Fixtures: existing files and a directory whose mode or contents the states change.
R="$1"
printf 'same\n' > "$R/existing-mode"; chmod 0644 "$R/existing-mode"
printf 'old\n' > "$R/existing-content"; chmod 0640 "$R/existing-content"
printf 'old\n' > "$R/existing-0600"; chmod 0600 "$R/existing-0600"
printf 'local\n' > "$R/fixture.txt"; chmod 0644 "$R/fixture.txt"
mkdir "$R/dir-existing"; chmod 0755 "$R/dir-existing"
