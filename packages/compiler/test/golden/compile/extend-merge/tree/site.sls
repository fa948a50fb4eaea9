include:
  - apache
extend:
  apache:
    service:
      - enable: true
      - watch:
        - file: apache_conf
  apache_conf:
    file.managed:
      - source: salt://site/apache2.conf
site:
  test.nop: []
