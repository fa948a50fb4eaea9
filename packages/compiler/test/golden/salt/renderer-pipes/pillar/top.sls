#!jinja|json
{"base": {"*": ["j", "x", "p"]}}
