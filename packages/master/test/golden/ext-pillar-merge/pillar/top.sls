base:
  '*':
    - roots
