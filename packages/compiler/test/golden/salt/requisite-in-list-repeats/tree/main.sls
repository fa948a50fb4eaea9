a:
  cmd.run:
    - name: echo a
    - require_in:
      - cmd: b
      - cmd: c
      - sls: other
    - watch_in:
      - cmd: echo c
      - d
b:
  cmd.run:
    - name: echo b
c:
  cmd.run:
    - name: echo c
d:
  cmd.run:
    - name: echo d
    - prereq_in:
      - cmd: b
      - cmd: c
