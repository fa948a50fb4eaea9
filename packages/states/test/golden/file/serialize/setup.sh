R="$1"
printf '{\n  "a": 1,\n  "b": [\n    "x",\n    "y"\n  ]\n}\n' > "$R/same.json"
printf '{"keep": {"deep": 1, "other": "o"}, "top": true}\n' > "$R/merge.json"
printf 'old: 1\n' > "$R/change.yaml"
