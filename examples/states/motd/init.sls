{% from 'map.jinja' import example with context %}
example_root:
  file.directory:
    - name: {{ example.root }}
    - makedirs: True

motd:
  file.managed:
    - name: {{ example.root }}/motd
    - source: salt://motd/motd.j2
    - template: jinja
    - mode: '0644'
    - require:
      - file: example_root
