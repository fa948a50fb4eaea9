new-json:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/new.json
    - serializer: json
    - dataset:
        zeta: 1
        alpha:
          list: [1, "two", null, true]
          nested: {b: 2, a: 'é'}
        empty: {}
same-json:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/same.json
    - formatter: json
    - dataset: {a: 1, b: [x, y]}
new-yaml:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/new.yaml
    - dataset:
        server:
          port: 8080
          hosts: [a, b]
          opts: {z: 'yes', y: '1.5', x: ''}
        name: demo
        empty_list: []
change-yaml:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/change.yaml
    - serializer: yaml
    - dataset: {old: 2, new: text}
merge-json:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/merge.json
    - serializer: json
    - merge_if_exists: True
    - dataset: {keep: {deep: 2, added: 3}, extra: [1]}
merge-same:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/same.json
    - serializer: json
    - merge_if_exists: True
    - dataset: {a: 1}
no-create:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/absent.json
    - serializer: json
    - create: False
    - dataset: {a: 1}
bad-serializer:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/bad.x
    - serializer: nosuch
    - dataset: {a: 1}
no-dataset:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/none.json
    - serializer: json
both:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/both.json
    - serializer: json
    - formatter: yaml
    - dataset: {a: 1}
with-mode:
  file.serialize:
    - name: /tmp/brine-golden/file-serialize/mode.json
    - serializer: json
    - mode: '0600'
    - dataset: [1, 2]
