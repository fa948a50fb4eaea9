/etc/app.conf:
  file.managed:
    - contents: "{{ pillar.app.password }} {{ pillar.db.token }}"
    - mode: '0600'
db-owner:
  test.nop:
    - owner: {{ pillar.db.owner }}
    - items: {{ pillar.db.list | json }}
