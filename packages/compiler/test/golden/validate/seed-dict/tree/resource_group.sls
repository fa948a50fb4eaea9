{% set ruleIds = params.get("ruleDict") %}
{% for key, value in ruleIds.items() %}
key-{{ key }}:
    securestate.rules_status.present:
        - x: value-{{ value }}
{% endfor %}
