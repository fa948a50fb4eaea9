# pkg.installed applied for real (and test=True) where every package is already there, and where
# apt refuses: the comments Salt gives (openssh and cron formulas, issue 21 real applies).
plain:
  pkg.installed:
    - name: brine-demo-c
at-latest:
  pkg.installed:
    - name: brine-demo-c
    - version: latest
pinned-installed:
  pkg.installed:
    - name: brine-demo-c
    - version: 1.0-1
pkgs-one-pinned:
  pkg.installed:
    - pkgs:
      - brine-demo-c: 1.0-1
no-candidate:
  pkg.installed:
    - name: brine-demo-gone
unknown:
  pkg.installed:
    - name: brine-no-such-package
one-new-one-there:
  pkg.installed:
    - pkgs:
      - brine-demo-c
      - brine-demo-a
long-name:
  pkg.installed:
    - name: brine-demo-long-package-name
