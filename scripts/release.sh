#!/usr/bin/env bash
# `npm run release`: the release artifacts in dist-release/ (or $BRINE_RELEASE_OUT), for each
# architecture in $BRINE_RELEASE_ARCHES (default: x64 arm64):
#   brine-VERSION-linux-ARCH.tar.gz   Brine with its own Node 24 (from the npm registry's
#                                     node-linux-ARCH package, as scripts/node-toolchain.sh), the
#                                     built code and production dependencies; run bin/brine
#   brine_VERSION_DEBARCH.deb         the same tree in /usr/lib/brine, made with dpkg-deb
# Layout inside the tarball mirrors the repository (packages/*/dist, node_modules with the
# workspace links), so module resolution and the compile workers' read permissions are the same.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$(bash scripts/node-toolchain.sh 24):$PATH"
out="${BRINE_RELEASE_OUT:-$root/dist-release}"
arches="${BRINE_RELEASE_ARCHES:-x64 arm64}"
version="$(node -p 'require("./package.json").version')"
node_version="$(node -p process.versions.node)"
work="$(mktemp -d "${TMPDIR:-/tmp}/brine-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# the compiled modules and the CLI's bundle (npm run build without the lint and tests)
npx tsc -b
node scripts/bundle.mjs

# The Node runtime of one architecture: the host's from node-toolchain.sh, another's by `npm pack`.
runtime() {
  local arch="$1" pkg="node-linux-$1" dir
  if [ "$pkg" = "node-linux-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')" ]; then
    dirname "$(dirname "$(command -v node)")"
    return
  fi
  dir="$root/.tools/node-$node_version-$arch"
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$pkg@$node_version" >/dev/null && tar xzf "$pkg-$node_version.tgz" && rm "$pkg-$node_version.tgz")
  fi
  echo "$dir/package"
}

# Brine's code and production dependencies, as `npm ls --omit=dev` lists them.
stage_code() {
  local dest="$1" arch="$2" rel
  mkdir -p "$dest"
  cp package.json LICENSE NOTICE README.md "$dest/"
  mkdir -p "$dest/config" && cp config/master.yaml config/minion.yaml "$dest/config/"
  # npm ls exits non-zero over an extraneous or deduplicated entry; the listing is what counts
  { npm ls --omit=dev --all --parseable 2>/dev/null || true; } | sed "s#^$root/\?##" | grep . | sort -u > "$work/deps"
  while read -r rel; do
    case "$rel" in
      node_modules/@types/*) continue ;;
      packages/*/node_modules/*) ;;
      packages/*) continue ;;
    esac
    # a workspace package: its link, and the package's built code only
    if [ -L "$rel" ]; then
      mkdir -p "$dest/$(dirname "$rel")"
      cp -P "$rel" "$dest/$rel"
      local pkg="packages/${rel#node_modules/@brine/}"
      mkdir -p "$dest/$pkg"
      cp "$pkg/package.json" "$dest/$pkg/"
      [ -d "$pkg/ui" ] && cp -r "$pkg/ui" "$dest/$pkg/"
      # with their times (the bundle's stamp.json checks them) and the CLI's bundle
      (cd "$pkg" && find dist -type f \( -name '*.js' -o -path dist/bundle/stamp.json \) -print0 | tar --null -T - -cf -) | tar -C "$dest/$pkg" -xf -
      continue
    fi
    [ -e "$dest/$rel" ] && continue
    mkdir -p "$dest/$(dirname "$rel")"
    cp -a "$rel" "$dest/$rel"
  done < "$work/deps"
  # better-sqlite3: its prebuilt addon for this platform only, no C sources
  local b="$dest/node_modules/better-sqlite3"
  rm -rf "$b/deps" "$b/src" "$b/build"
  find "$b/prebuilds" -type f ! -name "linux-$arch.node" -delete
  find "$dest/node_modules" -depth -type d \( -name test -o -name tests -o -name __tests__ \) -prune -exec rm -rf {} + 2>/dev/null || true
  find "$dest/node_modules" -type f \( -name '*.ts' -o -name '*.map' -o -name '*.md' ! -iname 'license*' \) ! -name 'LICENSE*' -delete
}

for arch in $arches; do
  name="brine-$version-linux-$arch"
  tree="$work/$name"
  rt="$(runtime "$arch")"
  mkdir -p "$tree/bin" "$tree/node/bin"
  cp "$rt/bin/node" "$tree/node/bin/node"
  cp "$rt/LICENSE" "$tree/node/LICENSE"
  stage_code "$tree/lib" "$arch"
  cp packaging/brine.sh "$tree/bin/brine"
  chmod 755 "$tree/bin/brine"
  tar -C "$work" -czf "$out/$name.tar.gz" "$name"
  bash packaging/debian/build-deb.sh "$tree" "$version" "$arch" "$out"
  echo "release: $out/$name.tar.gz"
done
