extend:
  not_included:
    service:
      - enable: true
site:
  test.nop: []
