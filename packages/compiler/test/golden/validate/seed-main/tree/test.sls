{% set value = params.get('value') %}

state A:
    state.a.present:
        group: {{ value }}

state B:
    state.b.present:
        group: {{ value }}
