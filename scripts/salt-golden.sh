#!/bin/sh
# Records Salt's answer for golden cases under packages/compiler/test/golden/salt/ with the Salt
# oracle (see shared/tools/salt-oracle): salt-low.json (state.show_lowstate) and grains.json (the
# few grains the cases target). Needs ORACLE=<folder build-salt-oracle made>.
# A case holding gpg-secret.asc (a throwaway test key) renders with that key in a fresh
# gpg_keydir: the oracle's own runner has no such option, so the minion config is written here.
#   ORACLE=/path/to/salt-oracle scripts/salt-golden.sh packages/compiler/test/golden/salt/CASE...
set -eu
: "${ORACLE:?set ORACLE to the salt oracle folder}"
oracle() { # TREE PILLAR FUN [GPG_SECRET]
  if [ -z "${4:-}" ]; then (cd /tmp && "$ORACLE/salt-call-local" "$1" "$2" "$3"); return; fi
  t=$(mktemp -d /tmp/salt-golden.XXXXXX)
  mkdir -p "$t/conf" "$t/root" "$t/gpgkeys" "$t/empty"
  chmod 700 "$t/gpgkeys"
  GNUPGHOME="$t/gpgkeys" gpg --batch --quiet --import "$4" 2>/dev/null
  p=$2; [ "$p" = - ] && p="$t/empty"
  printf '%s\n' "id: anchor" "file_client: local" "root_dir: $t/root" "pki_dir: $t/root/pki" \
    "cachedir: $t/root/cache" "sock_dir: $t/root/sock" "log_file: $t/root/log/minion" \
    "pidfile: $t/root/run/minion.pid" "user: $(id -un)" "gpg_keydir: $t/gpgkeys" \
    "file_roots: {base: [$1]}" "pillar_roots: {base: [$p]}" > "$t/conf/minion"
  (cd /tmp && "$ORACLE/venv/bin/python" "$ORACLE/src/scripts/salt-call" --local -c "$t/conf" --out json -l quiet "$3") || true
  GNUPGHOME="$t/gpgkeys" gpgconf --kill gpg-agent 2>/dev/null || true
  rm -rf "$t"
}
for case in "$@"; do
  case=$(cd "$case" && pwd)
  pillar=-
  [ -d "$case/pillar" ] && pillar="$case/pillar"
  key=
  [ -f "$case/gpg-secret.asc" ] && key="$case/gpg-secret.asc"
  oracle "$case/tree" "$pillar" state.show_lowstate "$key" |
    python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["local"], sys.stdout, indent=2); print()' > "$case/salt-low.json"
  oracle "$case/tree" - grains.items |
    python3 -c 'import json,sys; g=json.load(sys.stdin)["local"]; json.dump({k: g[k] for k in ("id", "kernel", "os", "os_family", "osfinger")}, sys.stdout, indent=2); print()' > "$case/grains.json"
  echo "recorded $case"
done
