# The debconf database (/var/cache/debconf) gets a private upper layer: debconf-set-selections
# runs for real without changing the host's answers.
mount -t overlay overlay -o "lowerdir=/var/cache/debconf,upperdir=$1/up,workdir=$1/wk" /var/cache/debconf
