#!/usr/bin/env bash
# The tests use real servers and a real browser from Debian's packages, never mocks or
# downloaded builds. CI starts from a fresh Debian machine as root, so install what is missing.
# Elsewhere (not root, or no apt) print what is missing and let the tests that need it say so.
set -euo pipefail
packages=(postgresql mariadb-server mariadb-client debconf-utils cron gpg systemd locales util-linux passwd ufw chromium openssh-server openssh-client slapd ldap-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "test-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
  # Debian starts packaged servers on install where it can; the tests run their own in temp dirs.
  for svc in postgresql mariadb ssh; do service "$svc" stop >/dev/null 2>&1 || true; done
else
  echo "test-deps: missing ${missing[*]} (install them as root: apt-get install ${missing[*]})" >&2
fi
