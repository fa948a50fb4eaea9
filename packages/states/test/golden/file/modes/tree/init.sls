# New files and directories: Salt writes a file through a 0600 temp file (a source, or any mode
# given), so its changes name the mode whenever the final mode is not what that left.
contents-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/contents-no-mode
    - contents: a
contents-0644:
  file.managed:
    - name: /tmp/brine-golden/file-modes/contents-0644
    - contents: a
    - mode: '0644'
contents-0600:
  file.managed:
    - name: /tmp/brine-golden/file-modes/contents-0600
    - contents: a
    - mode: '0600'
contents-0640:
  file.managed:
    - name: /tmp/brine-golden/file-modes/contents-0640
    - contents: a
    - mode: 640
source-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/source-no-mode
    - source: salt://files/plain.txt
source-0600:
  file.managed:
    - name: /tmp/brine-golden/file-modes/source-0600
    - source: salt://files/plain.txt
    - mode: '0600'
source-0755:
  file.managed:
    - name: /tmp/brine-golden/file-modes/source-0755
    - source: salt://files/plain.txt
    - mode: '0755'
source-exec-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/source-exec-no-mode
    - source: salt://files/run.sh
template-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/template-no-mode
    - source: salt://files/plain.txt
    - template: jinja
local-source-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/local-source-no-mode
    - source: /tmp/brine-golden/file-modes/fixture.txt
empty-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/empty-no-mode
empty-0644:
  file.managed:
    - name: /tmp/brine-golden/file-modes/empty-0644
    - mode: '0644'
makedirs-0640:
  file.managed:
    - name: /tmp/brine-golden/file-modes/made/deep/makedirs-0640
    - contents: a
    - mode: '0640'
    - makedirs: True
existing-mode-change:
  file.managed:
    - name: /tmp/brine-golden/file-modes/existing-mode
    - contents: same
    - mode: '0600'
existing-content-no-mode:
  file.managed:
    - name: /tmp/brine-golden/file-modes/existing-content
    - source: salt://files/plain.txt
existing-0600-source:
  file.managed:
    - name: /tmp/brine-golden/file-modes/existing-0600
    - source: salt://files/plain.txt
dir-no-mode:
  file.directory:
    - name: /tmp/brine-golden/file-modes/dir-no-mode
dir-mode-0755:
  file.directory:
    - name: /tmp/brine-golden/file-modes/dir-mode-0755
    - mode: '0755'
dir-mode-0700:
  file.directory:
    - name: /tmp/brine-golden/file-modes/dir-mode-0700
    - mode: '0700'
dir-dir_mode-0750:
  file.directory:
    - name: /tmp/brine-golden/file-modes/dir-dir_mode-0750
    - dir_mode: '0750'
dir-makedirs-0750:
  file.directory:
    - name: /tmp/brine-golden/file-modes/dmade/deep/dir
    - dir_mode: '0750'
    - makedirs: True
dir-existing-mode:
  file.directory:
    - name: /tmp/brine-golden/file-modes/dir-existing
    - mode: '0700'
recurse-no-mode:
  file.recurse:
    - name: /tmp/brine-golden/file-modes/recurse-no-mode
    - source: salt://files
recurse-modes:
  file.recurse:
    - name: /tmp/brine-golden/file-modes/recurse-modes
    - source: salt://files
    - file_mode: '0600'
    - dir_mode: '0700'
recurse-file-0644:
  file.recurse:
    - name: /tmp/brine-golden/file-modes/recurse-file-0644
    - source: salt://files
    - file_mode: '0644'
