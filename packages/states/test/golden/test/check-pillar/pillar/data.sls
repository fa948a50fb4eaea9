{"flag": true, "count": 3, "name": "brine", "items": [1, 2], "conf": {"port": 80, "nested": {"deep": "x"}}, "nothing": null}
