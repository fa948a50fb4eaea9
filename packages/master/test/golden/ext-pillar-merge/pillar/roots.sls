shared:
  from: roots
  roots_only: 1
  list: [a, b]
  nested:
    keep: roots
top_roots: 1
