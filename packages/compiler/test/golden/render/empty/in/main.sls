{# only a comment #}
{% set x = 1 %}
