pkgs:
  pkg.installed:
    - names:
      - vim
      - git:
        - version: 1.2
      - curl
    - refresh: true
after:
  test.nop:
    - require:
      - pkg: git
      - pkg: pkgs
