app:
  port: 81
  deep:
    a: 2
  list: [b]
