/**
 * The shell scripts `brine bootstrap` runs on a target over SSH (POSIX sh, as root). Values go in
 * as positional parameters, never spliced into the script text; what a script prints is read by
 * the master as data: fixed words, a hash, a public key, each checked before use.
 */

/** One word for a POSIX shell, whatever it holds. */
export function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The remote command line: `sh -c SCRIPT bootstrap ARG...`. */
export function remoteCommand(script: string, args: string[]): string {
  return ['sh', '-c', shQuote(script), 'brine-bootstrap', ...args.map(shQuote)].join(' ');
}

/**
 * $1 prefix. Prints the installed release's hash (or `none`), the machine, whether systemd runs,
 * and the SSH client's address as the target sees it (the master's address when it listens on all).
 */
export const PROBE = `set -e
cat "$1/.brine-release" 2>/dev/null || echo none
uname -m
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then echo systemd; else echo plain; fi
echo "\${SSH_CONNECTION:-}"
`;

/**
 * $1 prefix, $2 the tarball's sha256; the tarball on stdin. Unpacked beside the running release
 * and swapped in once it runs, so a broken copy never replaces a working one.
 */
export const INSTALL = `set -e
p="$1"
mkdir -p "$p/bin"
rm -rf "$p/release.new" "$p/release.old"
mkdir "$p/release.new"
tar -xzf - -C "$p/release.new" --strip-components=1 --no-same-owner
"$p/release.new/bin/brine" --version >/dev/null
if [ -d "$p/release" ]; then mv "$p/release" "$p/release.old"; fi
mv "$p/release.new" "$p/release"
rm -rf "$p/release.old"
ln -sfn ../release/bin/brine "$p/bin/brine"
echo "$2" > "$p/.brine-release"
echo installed
`;

/**
 * $1 prefix, then pairs of FILE CONTENT: each file is written only when its content differs
 * (printing \`wrote FILE\`). Then the minion's key pair is made if missing and its public key printed.
 */
export const CONFIGURE = `set -e
p="$1"
shift
umask 022
while [ $# -ge 2 ]; do
  mkdir -p "$(dirname "$1")"
  printf '%s' "$2" > "$1.new"
  if cmp -s "$1.new" "$1"; then rm -f "$1.new"; else
    case "$1" in *.yaml) chmod 600 "$1.new" ;; */bin/*) chmod 755 "$1.new" ;; esac
    mv -f "$1.new" "$1"
    echo "wrote $1"
  fi
  shift 2
done
"$p/bin/brine" minion-key --config "$p/etc/minion.yaml"
`;

/**
 * $1 prefix, $2 1 to restart a running minion (its release or config changed), $3 systemd|plain,
 * $4 1 when the unit file changed. Prints started, restarted or running.
 */
export const START = `set -e
p="$1"
if [ "$3" = systemd ]; then
  [ "$4" = 1 ] && systemctl daemon-reload
  systemctl enable -q brine-minion.service
  if systemctl is-active -q brine-minion.service; then
    if [ "$2" = 1 ]; then systemctl restart brine-minion.service; echo restarted; else echo running; fi
  else systemctl start brine-minion.service; echo started; fi
  exit 0
fi
pid="$(cat "$p/var/minion.pid" 2>/dev/null || true)"
alive() { [ -n "$pid" ] && grep -qs brine-minion-supervise "/proc/$pid/cmdline"; }
was=started
if alive && [ "$2" = 1 ]; then
  kill "$pid"
  timeout 30 tail --pid="$pid" -f /dev/null || true
  was=restarted
fi
if alive; then echo running; exit 0; fi
mkdir -p "$p/var"
setsid "$p/bin/brine-minion-supervise" </dev/null >>"$p/var/minion.log" 2>&1 &
echo "$was"
`;

/** $1 prefix, $2 systemd|plain: the minion's last log lines, for a minion that did not connect. */
export const LOG_TAIL = `if [ "$2" = systemd ]; then journalctl -u brine-minion.service -n 5 --no-pager -o cat; else tail -n 5 "$1/var/minion.log"; fi`;

/**
 * <prefix>/bin/brine-minion-supervise, where systemd does not run: the minion restarted 5 s after
 * it fails (as the unit's Restart=on-failure), its pid in <prefix>/var/minion.pid; TERM stops both.
 */
export const SUPERVISOR = `#!/bin/sh
# Written by brine bootstrap: keeps the Brine minion running where systemd does not run.
# Stop it with: kill "$(cat PREFIX/var/minion.pid)"
p="$(dirname "$(dirname "$(readlink -f "$0")")")"
mkdir -p "$p/var"
echo $$ > "$p/var/minion.pid"
child=
stop() {
  if [ -n "$child" ]; then kill "$child" 2>/dev/null; wait "$child"; fi
  rm -f "$p/var/minion.pid"
  exit 0
}
trap stop TERM INT HUP
while :; do
  "$p/bin/brine" minion --config "$p/etc/minion.yaml" --log-format json &
  child=$!
  if wait "$child"; then break; fi
  child=
  sleep 5 &
  wait $!
done
rm -f "$p/var/minion.pid"
`;

/** /etc/systemd/system/brine-minion.service for a minion installed under `prefix`. */
export function systemdUnit(prefix: string): string {
  return `# Written by brine bootstrap
[Unit]
Description=Brine minion (applies the master's states on this host)
After=network-online.target
Wants=network-online.target

[Service]
# as Salt's minion: root; KillMode=process so a state restarting this service keeps its own job
Type=simple
ExecStart=${prefix}/bin/brine minion --config ${prefix}/etc/minion.yaml --log-format json
KillMode=process
Restart=on-failure
RestartSec=5
LimitNOFILE=8192

[Install]
WantedBy=multi-user.target
`;
}
