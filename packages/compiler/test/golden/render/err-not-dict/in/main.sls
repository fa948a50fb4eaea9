{% for i in range(2) %}
- item{{ i }}
{% endfor %}
