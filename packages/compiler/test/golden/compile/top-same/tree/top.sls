base:
  '*':
    - a
dev:
  '*':
    - from_base_for_dev
