apache:
  pkg.installed: []
  service.running:
    - enable: false
    - watch:
      - pkg: apache
apache_conf:
  file.managed:
    - name: /etc/apache2/apache2.conf
