# stop the case's server and wait until it has exited (it writes into ROOT until then)
[ -f "$1/mysqld.pid" ] || exit 0
pid="$(cat "$1/mysqld.pid")"
kill "$pid" 2>/dev/null
for _ in $(seq 1 400); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.05; done
kill -9 "$pid" 2>/dev/null
