# the test user goes
userdel brinessh2 2>/dev/null || true
