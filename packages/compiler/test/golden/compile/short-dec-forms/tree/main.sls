vim: pkg.installed
git:
  pkg.installed:
nginx:
  pkg.installed: []
  service.running:
    - require:
      - pkg: nginx
