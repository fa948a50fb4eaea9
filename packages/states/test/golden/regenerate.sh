#!/bin/bash
# Regenerates the golden expectations of the state-module cases from the Salt oracle.
# usage: regenerate.sh [CASE_DIR...]   (default: every case folder below this one)
#
# A case folder holds tree/init.sls (its paths under /tmp/brine-golden/<module>-<case>, the
# ROOT the tests relocate), optionally pillar/ (the pillar root Salt runs with), optionally setup.sh (run as `bash setup.sh ROOT` before each run:
# the fixtures), optionally wrap (a command prefix such as `unshare -un`: the namespace Salt
# runs in) and ns.sh (sourced inside that namespace with ROOT as $1: bind mounts). It writes
# salt-low.json (state.show_lowstate), salt-run-test.json (state.apply test=True on fresh
# fixtures) and salt-run.json (state.apply on fresh fixtures), without start_time/duration.
# Optionally after.sh (its output after the real apply goes to salt-after.txt: state outside
# ROOT, such as a crontab) and cleanup.sh (run last: undoes what setup.sh made outside ROOT).
# A case holding record.py (one that needs a host service manager) is recorded by that script
# instead. With a `capture` file in the case, salt-tree.json records every path the apply left
# in ROOT (mode, and text for files). With `extmods` (owner/name of a fetched formula under
# $MIRRORS, default /work/.mirror), Salt runs with that formula's own _states/_modules beside the
# tree. Needs root for the namespaces. Never writes Brine's output.
set -eu
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ORACLE="${SALT_ORACLE:-/work/scratch/salt-oracle/salt-call-local}"
PY="$(dirname "$ORACLE")/venv/bin/python"
cases=("$@")
if [ ${#cases[@]} = 0 ]; then mapfile -t cases < <(find "$HERE" -mindepth 2 -maxdepth 2 -type d | sort); fi
for c in "${cases[@]}"; do
  c="$(cd "$c" && pwd)"
  if [ -f "$c/record.py" ]; then # Salt's state code over an injected layer (see the script)
    "$PY" "$c/record.py" "$c"; echo "recorded $c"; continue
  fi
  root="/tmp/brine-golden/$(basename "$(dirname "$c")")-$(basename "$c")"
  wrap=""; [ -f "$c/wrap" ] && wrap="$(cat "$c/wrap")"
  tree="$c/tree"; extra=()
  if [ -f "$c/extmods" ]; then # a formula's own Python modules (_states, _modules), never kept in the repo
    repo="$(cat "$c/extmods")"; tree="$(mktemp -d)"; cp -a "$c/tree/." "$tree/"
    git --git-dir="${MIRRORS:-/work/.mirror}/${repo/\//+}/repo" archive HEAD _states _modules | tar -x -C "$tree"
    extra=(--states-dir "$tree/_states" --module-dirs "$tree/_modules")
  fi
  pillar="-"; [ -d "$c/pillar" ] && pillar="$c/pillar"
  run() { # $1 output file, rest: salt-call args
    local out="$1"; shift
    rm -rf "$root"; mkdir -p "$root"
    [ -f "$c/setup.sh" ] && bash "$c/setup.sh" "$root"
    (cd /tmp && $wrap bash -c '[ -f "$1/ns.sh" ] && . "$1/ns.sh" "$2"; shift 2; exec "$@"' _ "$c" "$root" \
      "$ORACLE" "$tree" "$pillar" "${extra[@]}" "$@") > "$c/$out.raw" || true
    "$PY" - "$c/$out.raw" "$c/$out" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))["local"]
if isinstance(data, dict):
    for v in data.values():
        if isinstance(v, dict):
            v.pop("start_time", None); v.pop("duration", None)
json.dump(data, open(sys.argv[2], "w"), indent=2, sort_keys=True)
open(sys.argv[2], "a").write("\n")
PY
    rm -f "$c/$out.raw"
  }
  run salt-low.json state.show_low_sls init
  run salt-run-test.json state.apply init test=True
  run salt-run.json state.apply init
  if [ -f "$c/collect" ]; then # the files the run left, as Salt wrote them
    "$PY" - "$root" "$c/collect" "$c/salt-files.json" <<'PY'
import json, os, sys
root, collect, out = sys.argv[1:4]
files = {}
for rel in open(collect).read().split():
    p = os.path.join(root, rel)
    files[rel] = open(p).read() if os.path.isfile(p) else None
json.dump(files, open(out, "w"), indent=2, sort_keys=True)
open(out, "a").write("\n")
PY
  fi
  if [ -f "$c/capture" ]; then # the whole ROOT as the apply left it: path -> mode (and text)
    "$PY" - "$root" "$c/salt-tree.json" <<'PY'
import json, os, sys
root, out = sys.argv[1:3]
files = {}
for d, dirs, names in os.walk(root):
    for n in dirs + names:
        p = os.path.join(d, n)
        entry = {"mode": oct(os.lstat(p).st_mode & 0o7777)[2:].zfill(4)}
        if os.path.isdir(p):
            entry["type"] = "dir"
        elif os.path.isfile(p):
            entry["text"] = open(p, encoding="utf-8", errors="replace").read()
        else:
            continue
        files[os.path.relpath(p, root)] = entry
json.dump(files, open(out, "w"), indent=2, sort_keys=True)
open(out, "a").write("\n")
PY
  fi
  [ -f "$c/after.sh" ] && bash "$c/after.sh" "$root" > "$c/salt-after.txt"
  [ -f "$c/cleanup.sh" ] && bash "$c/cleanup.sh" "$root"
  rm -rf "$root"
  echo "regenerated $c"
done
