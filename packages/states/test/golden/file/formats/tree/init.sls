# Keys in sorted order: salt-low.json is written with sorted keys, and these serializers keep
# the dataset's order.
toml:
  file.serialize:
    - name: /tmp/brine-golden/file-formats/c.toml
    - serializer: toml
    - dataset:
        empty: {}
        enabled: true
        list: [1, two]
        name: demo
        port: 8080
        ratio: 1.5
        server:
          host: h
          opts: {a: 1}
ini:
  file.serialize:
    - name: /tmp/brine-golden/file-formats/c.ini
    - serializer: configparser
    - dataset:
        main: {Key: v, b: true, n: 1}
        other: {x: 'y z'}
plist:
  file.serialize:
    - name: /tmp/brine-golden/file-formats/c.plist
    - serializer: plist
    - dataset:
        b: [1, x, true, 1.5]
        a: {c: '<d>'}
        e: {}
        f: []
ini-change:
  file.serialize:
    - name: /tmp/brine-golden/file-formats/same.ini
    - serializer: configparser
    - dataset:
        old: {x: 2}
