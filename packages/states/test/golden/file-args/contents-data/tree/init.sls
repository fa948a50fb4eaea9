pillar-string:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/motd
    - contents_pillar: motd
pillar-nested:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/id_rsa
    - contents_pillar: keys:deploy:id_rsa
pillar-delimiter:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/id_rsa2
    - contents_pillar: keys/deploy/id_rsa
    - contents_delimiter: /
pillar-list:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/parts
    - contents_pillar:
      - part1
      - part2
pillar-number:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/number
    - contents_pillar: number
pillar-missing:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/missing
    - contents_pillar: no:such:key
pillar-list-missing:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/missing2
    - contents_pillar:
      - part1
      - nope
pillar-empty-refused:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/empty
    - contents_pillar: empty
    - allow_empty: False
pillar-empty-allowed:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/empty-ok
    - contents_pillar: empty
pillar-and-source:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/both
    - contents_pillar: motd
    - source: salt://nothing
pillar-and-contents:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/both2
    - contents_pillar: motd
    - contents: x
grains-id:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/minion-id
    - contents_grains: id
grains-missing:
  file.managed:
    - name: /tmp/brine-golden/file-args-contents-data/nograin
    - contents_grains: no_such_grain
