touch-new:
  file.touch:
    - name: /tmp/brine-golden/file-simple/touched
touch-existing:
  file.touch:
    - name: /tmp/brine-golden/file-simple/exists.txt
touch-dir:
  file.touch:
    - name: /tmp/brine-golden/file-simple/dir
touch-no-parent:
  file.touch:
    - name: /tmp/brine-golden/file-simple/nope/touched
touch-makedirs:
  file.touch:
    - name: /tmp/brine-golden/file-simple/made/deep/touched
    - makedirs: True
touch-relative:
  file.touch:
    - name: relative/path
exists-yes:
  file.exists:
    - name: /tmp/brine-golden/file-simple/src.txt
exists-no:
  file.exists:
    - name: /tmp/brine-golden/file-simple/nothing
missing-yes:
  file.missing:
    - name: /tmp/brine-golden/file-simple/nothing
missing-no:
  file.missing:
    - name: /tmp/brine-golden/file-simple/dir
copy-new:
  file.copy:
    - name: /tmp/brine-golden/file-simple/copied.txt
    - source: /tmp/brine-golden/file-simple/src.txt
copy-exists:
  file.copy:
    - name: /tmp/brine-golden/file-simple/exists.txt
    - source: /tmp/brine-golden/file-simple/src.txt
copy-force:
  file.copy:
    - name: /tmp/brine-golden/file-simple/same-copy.txt
    - source: /tmp/brine-golden/file-simple/same.txt
    - force: True
copy-no-source:
  file.copy:
    - name: /tmp/brine-golden/file-simple/c2.txt
    - source: /tmp/brine-golden/file-simple/nothing
copy-no-dir:
  file.copy:
    - name: /tmp/brine-golden/file-simple/nodir/c.txt
    - source: /tmp/brine-golden/file-simple/src.txt
copy-makedirs:
  file.copy:
    - name: /tmp/brine-golden/file-simple/newdir/c.txt
    - source: /tmp/brine-golden/file-simple/src.txt
    - makedirs: True
copy-subdir:
  file.copy:
    - name: /tmp/brine-golden/file-simple/dir
    - source: /tmp/brine-golden/file-simple/src.txt
    - subdir: True
rename-move:
  file.rename:
    - name: /tmp/brine-golden/file-simple/moved.txt
    - source: /tmp/brine-golden/file-simple/tomove.txt
rename-gone:
  file.rename:
    - name: /tmp/brine-golden/file-simple/moved.txt
    - source: /tmp/brine-golden/file-simple/never.txt
rename-blocked:
  file.rename:
    - name: /tmp/brine-golden/file-simple/blocked.txt
    - source: /tmp/brine-golden/file-simple/tomove2.txt
rename-force:
  file.rename:
    - name: /tmp/brine-golden/file-simple/blocked.txt
    - source: /tmp/brine-golden/file-simple/tomove2.txt
    - force: True
