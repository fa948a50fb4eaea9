#!/bin/sh
cat <<YAML
shared:
  from: cmd
  cmd_only: $1-seen
  list: [b, c]
  nested:
    x: 1
top_cmd: yes
YAML
