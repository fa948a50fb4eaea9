{% set workers = 4 %}
webapp:
  settings:
    workers: {{ workers }}
  sites:
    - alpha
    - beta
