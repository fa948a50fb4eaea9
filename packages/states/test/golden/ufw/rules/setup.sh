# ufw's own state (/etc/ufw, /etc/default/ufw) as Debian's package installs it, copied under ROOT;
# ns.sh binds the copies over the real paths inside the case's mount namespace.
set -eu
R="$1"
cp -a /etc/ufw "$R/etc-ufw"
cp -a /etc/default/ufw "$R/default-ufw"
