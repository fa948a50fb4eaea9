wrong-type-forced:
  archive.extracted:
    - name: /tmp/brine-golden/archive-force/forced
    - source: /tmp/brine-golden/archive-force/src/app.tar.gz
    - force: True
wrong-type-refused:
  archive.extracted:
    - name: /tmp/brine-golden/archive-force/refused
    - source: /tmp/brine-golden/archive-force/src/app.tar.gz
