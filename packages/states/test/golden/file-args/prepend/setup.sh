printf 'line a\nline b\n' > "$1/existing.txt"
printf '# header one\n# header two\nbody\n' > "$1/headed.txt"
printf 'body\n' > "$1/unheaded.txt"
printf 'x   y\nrest\n' > "$1/spaced.txt"
