base:
  '*':
    - ignored
dev:
  '*':
    - d
