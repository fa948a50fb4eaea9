# A file for file.absent to remove.
printf 'bye\n' > "$1/gone.txt"
