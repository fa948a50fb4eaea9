root: /tmp/brine-fleet
tier: general
admins: [alice, bob]
