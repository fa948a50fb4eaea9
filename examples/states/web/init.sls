web_index:
  file.managed:
    - name: /tmp/brine-example/app/data/index.html
    - contents: "<h1>{{ grains['id'] }}</h1>"
    - require:
      - sls: app

web_check:
  test.succeed_without_changes:
    - watch:
      - file: web_index
