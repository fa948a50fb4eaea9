# Fixtures: existing files that replace: False must leave as they are.
R="$1"
printf 'old\n' > "$R/replace-false-same"; chmod 0644 "$R/replace-false-same"
printf 'old\n' > "$R/replace-false-mode"; chmod 0644 "$R/replace-false-mode"
