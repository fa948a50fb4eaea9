#!/bin/sh
# Records Salt's answer for golden cases under packages/compiler/test/golden/salt/ with the Salt
# oracle (see shared/tools/salt-oracle): salt-low.json (state.show_lowstate) and grains.json (the
# few grains the cases target). Needs ORACLE=<folder build-salt-oracle made>.
#   ORACLE=/path/to/salt-oracle scripts/salt-golden.sh packages/compiler/test/golden/salt/CASE...
set -eu
: "${ORACLE:?set ORACLE to the salt oracle folder}"
for case in "$@"; do
  case=$(cd "$case" && pwd)
  pillar=-
  [ -d "$case/pillar" ] && pillar="$case/pillar"
  (cd /tmp && "$ORACLE/salt-call-local" "$case/tree" "$pillar" state.show_lowstate) |
    python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["local"], sys.stdout, indent=2); print()' > "$case/salt-low.json"
  (cd /tmp && "$ORACLE/salt-call-local" "$case/tree" - grains.items) |
    python3 -c 'import json,sys; g=json.load(sys.stdin)["local"]; json.dump({k: g[k] for k in ("id", "kernel", "os", "os_family", "osfinger")}, sys.stdout, indent=2); print()' > "$case/grains.json"
  echo "recorded $case"
done
