# A private package world under ROOT for the pkg cases, bound over the host's by the case's ns.sh:
# a dpkg database holding one installed package, and a local file: repository of tiny real
# packages (no files, built here with dpkg-deb). apt's lists are made in the same namespace.
# usage: bash apt-world.sh ROOT CASE_DIR INSTALLED:VERSION NAME:VERSION[:CONTROL LINE]...
root="$1"; case_dir="$2"; installed="$3"; shift 3
# apt's fetch methods run as the _apt user: the repository must be reachable by it
chmod 0755 "$(dirname "$root")" "$root"
mkdir -p "$root/dpkg/info" "$root/dpkg/updates" "$root/dpkg/triggers" "$root/lists/partial" "$root/cache/archives/partial" "$root/repo" "$root/sources.list.d" "$root/build"
cat > "$root/dpkg/status" <<STATUS
Package: ${installed%%:*}
Status: install ok installed
Priority: optional
Section: misc
Maintainer: Brine Tests <tests@example.invalid>
Architecture: all
Version: ${installed#*:}
Description: brine golden test package

STATUS
touch "$root/dpkg/available" "$root/dpkg/triggers/Unincorp"
for spec in "$@"; do
  p="${spec%%:*}"; rest="${spec#*:}"; v="${rest%%:*}"; extra=""
  [ "$rest" != "$v" ] && extra="${rest#*:}"
  d="$root/build/${p}_$v"
  mkdir -p "$d/DEBIAN"
  printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: Brine Tests <tests@example.invalid>\nDescription: brine golden test package\n' "$p" "$v" > "$d/DEBIAN/control"
  [ -n "$extra" ] && echo "$extra" >> "$d/DEBIAN/control"
  dpkg-deb -Zgzip --build "$d" "$root/repo/${p}_${v}_all.deb" >/dev/null
done
rm -rf "$root/build"
for deb in "$root"/repo/*.deb; do
  dpkg-deb -f "$deb"
  printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "$(basename "$deb")" "$(stat -c %s "$deb")" "$(sha256sum "$deb" | cut -d' ' -f1)"
done > "$root/repo/Packages"
echo "deb [trusted=yes] file:$root/repo ./" > "$root/sources.list.d/brine-golden.list"
unshare -m bash -c '. "$1/ns.sh" "$2" && apt-get -q -o Acquire::Languages=none update' _ "$case_dir" "$root" >/dev/null 2>&1
rm -f "$root/lists/lock" "$root/cache/pkgcache.bin.*" 2>/dev/null
true
