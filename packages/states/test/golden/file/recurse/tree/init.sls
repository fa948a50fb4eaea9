fresh:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/fresh
    - source: salt://files/conf
    - exclude_pat: '*.log'
    - file_mode: '0640'
    - dir_mode: '0750'
same:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/same
    - source: salt://files/conf/
clean:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/clean
    - source: salt://files/conf
    - clean: True
    - exclude_pat: '*.log'
templated:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/templated
    - source: salt://files/tpl
    - template: jinja
only-sub:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/inc
    - source: salt://files/conf
    - include_pat: 'sub/*'
no-such-dir:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/nothing
    - source: salt://files/nope
not-salt:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/nothing
    - source: /etc
with-mode:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse/nothing
    - source: salt://files/conf
    - mode: '0644'
