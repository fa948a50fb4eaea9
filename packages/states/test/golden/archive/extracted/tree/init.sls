tar-local:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/dest
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
tar-local-again:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/dest
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
already-present:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/present
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
if-missing:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/skipped
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - if_missing: /tmp/brine-golden/archive-extracted/marker
hash-ok:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/hashed
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - source_hash: sha256=eb73c99665425ded7251ab500e3c8e4c1357686a0e3aa006ba0a603139158849
hash-bad:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/badhash
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - source_hash: sha256=0000000000000000000000000000000000000000000000000000000000000000
toplevel-refused:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/flat
    - source: /tmp/brine-golden/archive-extracted/src/flat.tar.gz
toplevel-allowed:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/flat
    - source: /tmp/brine-golden/archive-extracted/src/flat.tar.gz
    - enforce_toplevel: False
strip:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/stripped
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - options: --strip-components=1
    - enforce_toplevel: False
zip-local:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/zipped
    - source: /tmp/brine-golden/archive-extracted/src/app.zip
from-tree:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/fromtree
    - source: salt://app.tar.gz
    - source_hash: sha256=eb73c99665425ded7251ab500e3c8e4c1357686a0e3aa006ba0a603139158849
owned:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/owned
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - user: nobody
    - group: nogroup
missing-source:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/none
    - source: /tmp/brine-golden/archive-extracted/src/none.tar.gz
relative:
  archive.extracted:
    - name: relative/dir
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
zip-local-again:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/zipped
    - source: /tmp/brine-golden/archive-extracted/src/app.zip
owned-again:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/owned
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - user: nobody
    - group: nogroup
present-owned:
  archive.extracted:
    - name: /tmp/brine-golden/archive-extracted/present
    - source: /tmp/brine-golden/archive-extracted/src/app.tar.gz
    - user: nobody
