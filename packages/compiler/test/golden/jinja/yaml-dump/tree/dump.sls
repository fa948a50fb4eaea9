{%- set data = {
    'servers': ['alpha.example.com', 'bravo.example.com', 'charlie.example.com', 'delta.example.com'],
    'text': "first line\nsecond line",
    'flags': {'on': 'yes', 'mode': '0644', 'empty': '', 'none': None, 'colon': 'a: b', 'hash': 'x #y'},
    'quote': "it's",
    'long': 'word ' * 30,
} %}
dump:
  test.nop:
    - flow: {{ data | yaml }}
    - nested:
        inner: {{ data.servers | yaml }}
    - block: |
        {{ data | yaml(False) | indent(8) }}
    - json: {{ data | json }}
    - tojson: {{ data.flags | tojson }}
    - scalar: {{ data.text | yaml }}
    - dquote: {{ data.quote | yaml_dquote }}
    - squote: {{ data.quote | yaml_squote }}
    - encode: {{ 'yes' | yaml_encode }}
