# the test user brinessh2 (made once) with its home in ROOT and an authorized_keys file
id brinessh2 >/dev/null 2>&1 || useradd -M -s /bin/sh brinessh2
usermod -d "$1/home" brinessh2
mkdir -p "$1/home/.ssh"
echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGF29Egmio6maAuKUYUXhJ2AZVatCnZKp8kIKQ54dw9b one@brine' > "$1/home/.ssh/authorized_keys"
chown -R brinessh2 "$1/home"
