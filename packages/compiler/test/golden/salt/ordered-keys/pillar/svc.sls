svc:
  services:
    http:
      port: 80
    https:
      port: 443
    139:
      proto: tcp
    140:
      proto: tcp
    '*':
      proto: any
    22:
      port: 22
