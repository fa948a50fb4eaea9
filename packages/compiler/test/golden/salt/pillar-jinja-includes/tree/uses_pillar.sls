{% for u in pillar['app']['users'] %}
user_{{ u }}:
  test.nop:
    - level: {{ pillar['app']['settings']['level'] }}
    - shared: {{ pillar['app']['settings']['shared'] }}
    - port: {{ salt['pillar.get']('app:extra:port') }}
    - name: {{ pillar['app']['name'] }}
{% endfor %}
more:
  test.nop:
    - data: {{ pillar.get('more') | json }}
    - never: {{ pillar.get('never', 'absent') }}
