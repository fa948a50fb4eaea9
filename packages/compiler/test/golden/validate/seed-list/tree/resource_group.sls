{% for ruleId in params.get('ruleIds') %}
{{ ruleId }}:
    securestate.rules_status.present:
        - abc: def
{% endfor %}
