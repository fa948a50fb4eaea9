base:
  '*':
    - uses_pillar
