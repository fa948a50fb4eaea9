# what Salt left in /etc (the overlay's upper layer)
cat "$1/up/timezone" 2>/dev/null || echo 'timezone unchanged'
readlink "$1/up/localtime" 2>/dev/null || echo 'localtime unchanged'
cat "$1/up/default/rcS" 2>/dev/null || echo 'rcS unchanged'
