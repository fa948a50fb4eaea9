base:
  '*':
    - from_base
dev:
  '*':
    - dev_from_base
