# Uses the custom state module in _states/release.mjs (not in the top file: apply it with
# `brine run '*' state.sls release`).
{% set root = salt['pillar.get']('root', '/tmp/brine-fleet') ~ '/' ~ grains['id'] %}
app-release:
  release.recorded:
    - name: {{ root }}/release.json
    - app: shop
    - version: {{ salt['pillar.get']('release', '1.0') }}
