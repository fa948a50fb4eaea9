tier: frontend
web:
  port: 8080
  workers: 4
