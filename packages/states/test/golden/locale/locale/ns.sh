# Salt's locale module on Debian without systemd: /etc/locale.gen, /etc/default/locale, locale-gen
# into /usr/lib/locale. The case's /etc files lie over the system's and /usr/lib/locale gets a
# private upper layer, so locale-gen and update-locale run for real without touching the host.
mount -t overlay overlay -o "lowerdir=$1/etc:/etc,upperdir=$1/up,workdir=$1/wk" /etc
mount -t overlay overlay -o "lowerdir=/usr/lib/locale,upperdir=$1/lu,workdir=$1/lw" /usr/lib/locale
