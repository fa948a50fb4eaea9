# pkg.installed against a private package world (setup.sh, ns.sh): what test=True predicts.
already:
  pkg.installed:
    - name: brine-demo-installed
absent-one:
  pkg.installed:
    - name: brine-demo-a
several:
  pkg.installed:
    - pkgs:
      - brine-demo-installed
      - brine-demo-a
      - brine-demo-b
pinned-absent:
  pkg.installed:
    - name: brine-demo-b
    - version: 1.4-1
pinned-other:
  pkg.installed:
    - name: brine-demo-installed
    - version: 1.1-1
unknown:
  pkg.installed:
    - name: brine-no-such-package
pinned-unknown-version:
  pkg.installed:
    - name: brine-demo-b
    - version: 9.9-1
pinned-pkgs:
  pkg.installed:
    - pkgs:
      - brine-demo-b: 1.4-1
      - brine-demo-a
version-latest:
  pkg.installed:
    - name: brine-demo-installed
    - version: latest
