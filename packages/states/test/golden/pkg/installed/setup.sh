# The package world of ../apt-world.sh: brine-demo-installed 1.0-1 installed; in the repository
# brine-demo-a 2.0-1, brine-demo-b 1.5-1 and 1.4-1, brine-demo-installed 1.0-1 and 1.1-1.
here="$(dirname "$0")"
bash "$here/../apt-world.sh" "$1" "$here" brine-demo-installed:1.0-1 \
  brine-demo-a:2.0-1 brine-demo-b:1.5-1 brine-demo-b:1.4-1 brine-demo-installed:1.0-1 brine-demo-installed:1.1-1
