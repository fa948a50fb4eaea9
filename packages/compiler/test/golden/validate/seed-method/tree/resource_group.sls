{% set ruleIds = params.get("ruleIdsString") %}
{% for ruleId in ruleIds.split(',') %}
{{ ruleId }}:
    securestate.rules_status.present:
        - x: y
{% endfor %}
