#!/bin/sh
# bin/brine of a release: Brine on the Node runtime it carries, wherever the tree was unpacked
# (also through a symlink such as /usr/bin/brine).
here="$(dirname "$(readlink -f "$0")")"
node="$here/../node/bin/node"
bin="$here/../lib/packages/cli/dist/bin.js"
# `brine master`: V8's helper threads one fewer than the cores (1 to 4) and 4 MB semi-spaces,
# each unless NODE_OPTIONS sets it, as packages/cli/bin/brine does (why: there)
if [ "${1:-}" = master ]; then
  flags=
  case ${NODE_OPTIONS:-} in
    *--v8-pool-size*) ;;
    *)
      pool=$(($(nproc 2>/dev/null || echo 5) - 1))
      [ "$pool" -lt 1 ] && pool=1
      [ "$pool" -gt 4 ] && pool=4
      flags=--v8-pool-size=$pool
      ;;
  esac
  case ${NODE_OPTIONS:-} in
    *--max-semi-space-size*) ;;
    *) flags="$flags --max-semi-space-size=4" ;;
  esac
  exec "$node" $flags "$bin" "$@"
fi
exec "$node" "$bin" "$@"
