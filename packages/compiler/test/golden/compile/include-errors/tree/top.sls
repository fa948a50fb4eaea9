base:
  '*':
    - main
    - nosuch
