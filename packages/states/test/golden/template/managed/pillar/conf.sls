conf:
  port: 9090
