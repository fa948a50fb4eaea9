{% if params.get('enabled') %}
svc:
  service.running:
    - name: {{ params.get('svc_name', 'app') }}
    - enable: {{ params.get('boot') | int }}
    - reload: {{ params.get('svc_name', 'apache') }}
{% endif %}
{% for i in range(params.get('count') | int) %}
never-{{ i }}:
  test.nop: []
{% endfor %}
