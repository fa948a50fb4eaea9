# the hardware clock in local time (rcS UTC=no); a Debian /etc as timezone reads it: /etc/timezone, the /etc/localtime link, /etc/adjtime
mkdir -p "$1/etc/default" "$1/up" "$1/wk"
echo 'Etc/UTC' > "$1/etc/timezone"
ln -s /usr/share/zoneinfo/Etc/UTC "$1/etc/localtime"
printf '0.0 0 0.0\n0\nUTC\n' > "$1/etc/adjtime"
printf '# defaults\nUTC=no\n' > "$1/etc/default/rcS"
