p:
  seen_id: '{{ opts.id }}'
