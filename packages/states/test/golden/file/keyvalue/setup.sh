R="$1"
printf 'PermitRootLogin yes\nPort 22\n#UseDNS yes\n  Indented no\n' > "$R/sshd"
printf 'a=1\nb = 2\na=3\n' > "$R/kv.conf"
printf 'x=1\n' > "$R/pre.conf"
