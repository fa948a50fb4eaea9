target:
  cmd.run:
    - name: echo target
src:
  test.nop:
    - require_in:
      - cmd: target
    - watch_in:
      - cmd: echo target
    - onchanges_in:
      - cmd: target
    - onfail_in:
      - cmd: target
    - listen_in:
      - cmd: target
    - prereq_in:
      - cmd: target
    - use_in:
      - cmd: target
    - cwd: /tmp
whole_sls:
  test.nop:
    - require_in:
      - sls: other
