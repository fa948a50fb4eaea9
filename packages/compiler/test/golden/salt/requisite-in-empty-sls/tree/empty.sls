# an SLS with no states
{% set unused = 1 %}
