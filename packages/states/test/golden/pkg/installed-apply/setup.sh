# A private package world under ROOT, bound over the host's by ns.sh (as ../installed): a dpkg
# database holding brine-demo-c 1.0-1, and a local file: repository with tiny real packages
# (no files, built here with dpkg-deb): brine-demo-c 1.0-1, which suggests brine-demo-gone (a
# name apt knows but cannot install: "no installation candidate"), brine-demo-a 2.0-1 and
# brine-demo-long-package-name 3.0-1.
root="$1"
# apt's fetch methods run as the _apt user: the repository must be reachable by it
chmod 0755 "$(dirname "$root")" "$root"
mkdir -p "$root/dpkg/info" "$root/dpkg/updates" "$root/dpkg/triggers" "$root/lists/partial" "$root/cache/archives/partial" "$root/repo" "$root/sources.list.d" "$root/build"
cat > "$root/dpkg/status" <<STATUS
Package: brine-demo-c
Status: install ok installed
Priority: optional
Section: misc
Maintainer: Brine Tests <tests@example.invalid>
Architecture: all
Version: 1.0-1
Description: brine golden test package

STATUS
touch "$root/dpkg/available" "$root/dpkg/triggers/Unincorp"
for pv in brine-demo-a:2.0-1 brine-demo-c:1.0-1 brine-demo-long-package-name:3.0-1; do
  p="${pv%%:*}"; v="${pv#*:}"; d="$root/build/${p}_$v"
  mkdir -p "$d/DEBIAN"
  printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: Brine Tests <tests@example.invalid>\nDescription: brine golden test package\n' "$p" "$v" > "$d/DEBIAN/control"
  [ "$p" = brine-demo-c ] && echo 'Suggests: brine-demo-gone' >> "$d/DEBIAN/control"
  dpkg-deb -Zgzip --build "$d" "$root/repo/${p}_${v}_all.deb" >/dev/null
done
rm -rf "$root/build"
for deb in "$root"/repo/*.deb; do
  dpkg-deb -f "$deb"
  printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "$(basename "$deb")" "$(stat -c %s "$deb")" "$(sha256sum "$deb" | cut -d' ' -f1)"
done > "$root/repo/Packages"
echo "deb [trusted=yes] file:$root/repo ./" > "$root/sources.list.d/brine-golden.list"
unshare -m bash -c '. "$1/ns.sh" "$2" && apt-get -q -o Acquire::Languages=none update' _ "$(dirname "$0")" "$root" >/dev/null 2>&1
rm -f "$root/lists/lock" "$root/cache/pkgcache.bin.*" 2>/dev/null
true
