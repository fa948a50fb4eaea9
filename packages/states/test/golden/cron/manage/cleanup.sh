# the test user and its crontab go
crontab -u brinecron1 -r 2>/dev/null || true
userdel brinecron1 2>/dev/null || true
