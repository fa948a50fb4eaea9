# Stops the oracle's HTTP server (setup.sh).
if [ -f /tmp/brine-golden-http.pid ]; then kill "$(cat /tmp/brine-golden-http.pid)" 2>/dev/null; rm -f /tmp/brine-golden-http.pid; fi
