app:
  settings:
    level: common
    shared: yes
  users: [root]
