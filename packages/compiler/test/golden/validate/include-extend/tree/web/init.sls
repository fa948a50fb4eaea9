include:
  - .base
extend:
  nginx-conf:
    file.managed:
      - source: salt://web/{{ params.get('flavour', 'plain') }}.conf
site:
  file.directory:
    - name: {{ params.get('docroot') }}
