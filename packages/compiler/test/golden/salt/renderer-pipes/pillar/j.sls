#!json
{"j": {"n": 1, "s": "{{ not jinja }}"}}
