# remote sources that cannot be fetched: a name that does not resolve (.invalid never does) and
# a port nobody listens on; the comment carries the resolver's / socket's error as Python words it
unresolvable-https:
  file.managed:
    - name: /tmp/brine-golden/file-source_unreachable/key.pgp
    - source: https://brine-golden.invalid/keys/public
    - skip_verify: True
unresolvable-http:
  file.managed:
    - name: /tmp/brine-golden/file-source_unreachable/app.conf
    - source: http://brine-golden.invalid/app.conf
    - skip_verify: True
refused:
  file.managed:
    - name: /tmp/brine-golden/file-source_unreachable/refused.conf
    - source: http://127.0.0.1:2/refused.conf
    - skip_verify: True
