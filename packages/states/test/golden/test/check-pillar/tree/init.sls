all-fine:
  test.check_pillar:
    - present: [flag, name, "conf:nested:deep"]
    - boolean: flag
    - integer: [count, flag]
    - string: name
    - listing: items
    - dictionary: [conf, "conf:nested"]
verbose-fine:
  test.check_pillar:
    - present: name
    - integer: "conf:port"
    - verbose: True
missing-and-wrong:
  test.check_pillar:
    - present: [absent_key, nothing]
    - boolean: count
    - string: items
    - dictionary: name
verbose-mixed:
  test.check_pillar:
    - listing: [items, conf]
    - verbose: True
nothing-asked:
  test.check_pillar: []
