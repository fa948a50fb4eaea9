include:
  - common.base
  - extra:
      defaults:
        port: 8080
      key: 'app:extra'
{% set users = ['alice', 'bob'] %}
app:
  name: {{ grains['os'] | lower }}-app
  users:
  {%- for u in users %}
    - {{ u }}
  {%- endfor %}
  settings:
    level: app
