# The package world of ../apt-world.sh (as ../installed): brine-demo-c 1.0-1 installed; in the
# repository brine-demo-c 1.0-1, which suggests brine-demo-gone (a name apt knows but cannot
# install: "no installation candidate"), brine-demo-a 2.0-1 and brine-demo-long-package-name 3.0-1.
here="$(dirname "$0")"
bash "$here/../apt-world.sh" "$1" "$here" brine-demo-c:1.0-1 \
  brine-demo-a:2.0-1 'brine-demo-c:1.0-1:Suggests: brine-demo-gone' brine-demo-long-package-name:3.0-1
