{% set os = 'Debian' %}
note:
  test.nop:
    - text: |
        Not for {{ os }}

{%- if true %}    {# trailing #}
{%- endif %}   {# end #}