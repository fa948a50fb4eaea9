include:
  - .motd

common-ready:
  test.succeed_without_changes:
    - comment: base layer of {{ grains['id'] }} in place
    - require:
      - file: motd
