# A MariaDB server of its own: a fresh data dir in ROOT, listening on ROOT/mysqld.sock only
# (no TCP), root without a password (the mysql.user table as Debian's server starts it). The
# server stops in cleanup.sh, or when the test that started it ends.
pkill -f -- "--datadir=$1/data" 2>/dev/null
mkdir -p "$1/data"
mariadb-install-db --no-defaults --datadir="$1/data" --auth-root-authentication-method=normal --skip-test-db --user=root >"$1/install.log" 2>&1
(mariadbd --no-defaults --datadir="$1/data" --socket="$1/mysqld.sock" --skip-networking --user=root --pid-file="$1/mysqld.pid" --log-error="$1/mysqld.err" </dev/null >/dev/null 2>&1 &)
for _ in $(seq 1 200); do
  mariadb --no-defaults -S "$1/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && exit 0
  sleep 0.05
done
echo "mariadbd did not start: $(tail -5 "$1/mysqld.err")" >&2
exit 1
