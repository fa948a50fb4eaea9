# the test user goes
userdel brinessh1 2>/dev/null || true
