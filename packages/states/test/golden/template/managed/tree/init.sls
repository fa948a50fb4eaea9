import:
  file.managed:
    - name: /tmp/brine-golden/template-managed/import.conf
    - source: salt://tpl/import.conf
    - template: jinja
    - mode: '0640'
    - context:
        tpldir: tpl
vars:
  file.managed:
    - name: /tmp/brine-golden/template-managed/vars.conf
    - source: salt://tpl/vars.conf
    - template: jinja
    - mode: 640
    - extra: xyz
    - config:
        key: value
    - defaults:
        a: from-defaults
        b: from-defaults
    - context:
        b: from-context
vars-existing:
  file.managed:
    - name: /tmp/brine-golden/template-managed/existing.conf
    - source: salt://tpl/vars.conf
    - template: jinja
    - user: root
    - group: root
    - extra: abc
    - config:
        key: other
    - context:
        a: 1
        b: 2
        user: from-context
calls:
  file.managed:
    - name: /tmp/brine-golden/template-managed/calls.conf
    - source: salt://tpl/calls.conf
    - template: jinja
    - mode: '0640'
    - context:
        probe: /tmp/brine-golden/template-managed/probe.txt
        probe_dir: /tmp/brine-golden/template-managed/probe
recurse:
  file.recurse:
    - name: /tmp/brine-golden/template-managed/rec
    - source: salt://tpl/rec
    - template: jinja
    - extra: rec-extra
    - file_mode: '0644'
    - defaults:
        b: rec-b
