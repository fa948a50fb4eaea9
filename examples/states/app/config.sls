{% from 'map.jinja' import example with context %}
app_config:
  file.managed:
    - name: {{ example.root }}/app/app.conf
    - contents: |
        port = {{ example.get('port', 80) }}
        user = {{ example.get('user', 'nobody') }}
{%- for feature in example.get('features', []) %}
        feature.{{ feature }} = on
{%- endfor %}
    - require:
      - file: app_dirs
