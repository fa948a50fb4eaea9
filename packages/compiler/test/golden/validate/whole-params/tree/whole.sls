dump:
  file.serialize:
    - name: /tmp/params.json
    - dataset: "{{ params }}"
