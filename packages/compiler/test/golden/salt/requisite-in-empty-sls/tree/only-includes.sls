include:
  - empty
