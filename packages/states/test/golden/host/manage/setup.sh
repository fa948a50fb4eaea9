# a hosts file with a comment line, a commented entry and a few aliases
cat > "$1/hosts" <<'HOSTS'
# static table
127.0.0.1	localhost
10.0.0.1	alpha alpha.lan
10.0.0.2	beta		# the beta box
10.0.0.3	gamma delta
HOSTS
