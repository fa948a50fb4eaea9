#!jinja|json
{"c{{ 1 }}": {"test.nop": [{"v": "{{ grains.id }}"}]}}
