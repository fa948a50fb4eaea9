{"motd": "Welcome to brine", "keys": {"deploy": {"id_rsa": "-----BEGIN KEY-----\nabc\n-----END KEY-----\n"}}, "empty": "", "number": 42, "part1": "first", "part2": "second"}
