seen_by_roots: {{ pillar.get('top_cmd', 'absent') }}
shared_from: {{ salt['pillar.get']('shared:from', 'absent') }}
