# Mounts that exist before the run, in this mount namespace only.
mount -t tmpfs -o size=1m brine-same "$1/same"
mount -t tmpfs -o size=1m brine-grow "$1/grow"
mount -t tmpfs -o size=1m brine-gone "$1/gone"
