#!yamlex
x:
  flag: yes
  octal: 0o17
  tilde: ~
