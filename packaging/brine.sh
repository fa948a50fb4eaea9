#!/bin/sh
# bin/brine of a release: Brine on the Node runtime it carries, wherever the tree was unpacked
# (also through a symlink such as /usr/bin/brine).
here="$(dirname "$(readlink -f "$0")")"
exec "$here/../node/bin/node" "$here/../lib/packages/cli/dist/bin.js" "$@"
