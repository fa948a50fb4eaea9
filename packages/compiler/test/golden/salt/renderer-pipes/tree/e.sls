#!jinja | yaml
e{{ 1 }}:
  test.nop:
    - from_json: {{ pillar.j | json }}
    - from_yamlex: {{ pillar.x | json }}
    - plain: '{{ pillar.p }}'
