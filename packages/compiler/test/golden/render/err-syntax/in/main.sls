a:
  test.nop: []
{% if x %}
