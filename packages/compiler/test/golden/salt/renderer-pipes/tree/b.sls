#!json
{"b1": {"test.nop": [{"v": 1}]}}
