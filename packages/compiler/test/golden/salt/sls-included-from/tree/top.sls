base:
  '*':
    - requisite
