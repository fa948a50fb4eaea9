# Fixtures: existing targets, and (for the oracle only) an HTTP server on 127.0.0.1:18841 serving
# www/, started once and stopped by cleanup.sh. The Brine test serves www/ itself.
R="$1"; HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
printf 'app=1\n' > "$R/existing-same.conf"
printf 'app=0\n' > "$R/existing-diff.conf"
printf 'app=0\n' > "$R/mismatch-existing.conf"
if [ -n "${GOLDEN_HTTP:-}" ] && ! [ -f /tmp/brine-golden-http.pid ]; then
  python3 -m http.server --bind 127.0.0.1 18841 --directory "$HERE/www" >/dev/null 2>&1 &
  echo $! > /tmp/brine-golden-http.pid
  for _ in $(seq 50); do python3 -c 'import socket; socket.create_connection(("127.0.0.1", 18841), 1)' 2>/dev/null && break; sleep 0.1; done
fi
