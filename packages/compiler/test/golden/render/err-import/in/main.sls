a:
  test.nop: []
{% from "lib/map.jinja" import m %}
