#!yaml
# no template here: {{ stays }} literal
/etc/motd:
  file.managed:
    - mode: 0644
    - dir_mode: '0755'
    - signed_mode: -010
    - replace: off
    - backup: On
    - answer: y
    - exp: 1e3
    - float: 1.5e+3
    - date: 2024-01-02
    - sexagesimal: 1:30
    - zero: 0
    - zeros: 000
    - nine: 0999
    - nothing: ~
    - text: "{{ stays }}"
