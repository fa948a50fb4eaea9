tier: storage
admins: [carol]
db:
  max_connections: 200
