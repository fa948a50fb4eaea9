base:
  '*':
    - b
    - c
dev:
  '*':
    - d
