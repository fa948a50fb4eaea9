#!/usr/bin/env bash
# The Debian package from a release tree (scripts/release.sh): build-deb.sh TREE VERSION ARCH OUT
set -euo pipefail
tree="$1" version="$2" arch="$3" out="$4"
here="$(cd "$(dirname "$0")" && pwd)"
case "$arch" in x64) debarch=amd64 ;; arm64) debarch=arm64 ;; *) echo "build-deb: no Debian architecture for $arch" >&2; exit 1 ;; esac
pkg="$(mktemp -d "${TMPDIR:-/tmp}/brine-deb.XXXXXX")"
trap 'rm -rf "$pkg"' EXIT
mkdir -p "$pkg/DEBIAN" "$pkg/usr/lib" "$pkg/usr/bin" "$pkg/etc/brine" "$pkg/var/lib/brine" "$pkg/lib/systemd/system" "$pkg/usr/share/doc/brine"
cp -a "$tree" "$pkg/usr/lib/brine"
ln -s ../lib/brine/bin/brine "$pkg/usr/bin/brine"
cp "$tree/lib/config/master.yaml" "$tree/lib/config/minion.yaml" "$pkg/etc/brine/"
chmod 640 "$pkg/etc/brine/master.yaml"
cp "$here/../systemd/brine-master.service" "$here/../systemd/brine-minion.service" "$pkg/lib/systemd/system/"
cp "$tree/lib/LICENSE" "$pkg/usr/share/doc/brine/copyright"
printf '/etc/brine/master.yaml\n/etc/brine/minion.yaml\n' > "$pkg/DEBIAN/conffiles"
for s in postinst prerm postrm; do install -m 755 "$here/$s" "$pkg/DEBIAN/$s"; done
size="$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$debarch/" -e "s/@SIZE@/$size/" "$here/control" > "$pkg/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip -z6 --build "$pkg" "$out/brine_${version}_${debarch}.deb" >/dev/null
echo "release: $out/brine_${version}_${debarch}.deb"
