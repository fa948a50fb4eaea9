# Keyword arguments the functions do not take: Salt's **kwargs ignores them.
absent-contents:
  file.absent:
    - name: /tmp/brine-golden/file-args-ignored/gone.txt
    - contents: hello
recurse-makedirs:
  file.recurse:
    - name: /tmp/brine-golden/file-args-ignored/copy
    - source: salt://src
    - makedirs: True
directory-dirmode:
  file.directory:
    - name: /tmp/brine-golden/file-args-ignored/dir
    - dirmode: '0755'
managed-extra:
  file.managed:
    - name: /tmp/brine-golden/file-args-ignored/plain.conf
    - contents: plain
    - apache:
        port: 80
    - config: {}
managed-file-mode:
  file.managed:
    - name: /tmp/brine-golden/file-args-ignored/file-mode.conf
    - contents: x
    - file_mode: '0644'
