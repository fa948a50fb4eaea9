# a known_hosts file with plain (unhashed) entries for beta and delta
cat > "$1/known_hosts" <<'HOSTS'
beta ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAXjSz060IQqKFdzyOOpMULgHx5xHcolN7gIVYA+Ktcd
delta ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0RBqcVNRlm+3M0P7MNhnnOeRo050qZ54bIcH86NWNF
HOSTS
chmod 0640 "$1/known_hosts"
