# Fixtures of file templates: a file the template's file.file_exists/directory_exists call finds,
# and an existing file a template replaces (its test-mode diff shows the rendered text).
R="$1"
mkdir -p "$R/probe"; printf "x\n" > "$R/probe.txt"
printf 'old line\n' > "$R/existing.conf"; chmod 0644 "$R/existing.conf"
