# the test user brinessh1 (made once) with its home in ROOT and an authorized_keys file
id brinessh1 >/dev/null 2>&1 || useradd -M -s /bin/sh brinessh1
usermod -d "$1/home" brinessh1
mkdir -p "$1/home/.ssh"
cat > "$1/home/.ssh/authorized_keys" <<'KEYS'
# managed by hand
ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGF29Egmio6maAuKUYUXhJ2AZVatCnZKp8kIKQ54dw9b one@brine
command="/bin/date" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF51rWWoIW6qKzmNRQKdfGf8D14SNp36BIumhQcv92MW two@brine
KEYS
chown -R brinessh1 "$1/home"
