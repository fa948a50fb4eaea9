{% from 'map.jinja' import example with context %}
include:
  - .config

app_dirs:
  file.directory:
    - names:
      - {{ example.root }}/app
      - {{ example.root }}/app/logs
      - {{ example.root }}/app/data
    - require:
      - file: example_root

app_ready:
  cmd.run:
    - name: echo "app configured on port {{ example.get('port', 80) }}"
    - cwd: {{ example.root }}
    - onchanges:
      - file: app_config
