app:
  name: one
  port: 80
  deep:
    a: 1
    b: 1
  list: [a]
