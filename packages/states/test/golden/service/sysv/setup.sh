# A private SysV world under ROOT (ns.sh binds it over /etc/init.d, /etc/rc?.d and
# /etc/systemd/system): three LSB init scripts that keep their running state under ROOT/run.
# brine-svc-on runs and starts at boot (S links), brine-svc-off is stopped with no links.
root="$1"
mkdir -p "$root/etc/init.d" "$root/etc/systemd-system" "$root/run"
for l in 0 1 2 3 4 5 6 S; do mkdir -p "$root/etc/rc$l.d"; done
for n in brine-svc-on brine-svc-off brine-svc-other; do
  cat > "$root/etc/init.d/$n" <<SCRIPT
#!/bin/sh
### BEGIN INIT INFO
# Provides:          $n
# Required-Start:
# Required-Stop:
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: brine golden test service
### END INIT INFO
state="$root/run/$n"
case "\$1" in
  start) echo start >> "\$state.log"; touch "\$state" ;;
  stop) echo stop >> "\$state.log"; rm -f "\$state" ;;
  restart|force-reload) echo "\$1" >> "\$state.log"; touch "\$state" ;;
  reload) echo reload >> "\$state.log" ;;
  status) [ -e "\$state" ] && exit 0; exit 3 ;;
  *) exit 2 ;;
esac
SCRIPT
  chmod 0755 "$root/etc/init.d/$n"
done
touch "$root/run/brine-svc-on" "$root/run/brine-svc-other"
for l in 2 3 4 5; do ln -s ../init.d/brine-svc-on "$root/etc/rc$l.d/S01brine-svc-on"; done
for l in 0 1 6; do ln -s ../init.d/brine-svc-on "$root/etc/rc$l.d/K01brine-svc-on"; done
# a `runlevel` that answers as SysV's does in a container, and a systemctl that is not a program
# (ns.sh binds them over /usr/local/sbin and /usr/bin/systemctl where the case needs it)
mkdir -p "$root/sbin" && printf '#!/bin/sh\necho unknown\nexit 1\n' > "$root/sbin/runlevel" && chmod 0755 "$root/sbin/runlevel"
touch "$root/no-systemctl" && chmod 0644 "$root/no-systemctl"
