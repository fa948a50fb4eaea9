fail-existing:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/fail-existing.conf
    - contents: bad
    - mode: '0600'
    - check_cmd: 'false'
pass-existing:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/pass-existing.conf
    - contents: new
    - check_cmd: 'true'
script-good-new:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/script-good-new.conf
    - contents: good
    - mode: '0640'
    - check_cmd: sh /tmp/brine-golden/file-check_cmd/check.sh
script-bad-new:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/script-bad-new.conf
    - contents: bad
    - check_cmd: sh /tmp/brine-golden/file-check_cmd/check.sh
script-bad-existing:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/script-bad-existing.conf
    - contents: bad
    - mode: '0600'
    - check_cmd: sh /tmp/brine-golden/file-check_cmd/check.sh
grep-good:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/grep-good.conf
    - contents:
      - first
      - good
    - check_cmd: grep -qx good
unchanged:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/unchanged.conf
    - contents: same
    - check_cmd: 'false'
mode-only:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/mode-only.conf
    - contents: good
    - mode: '0600'
    - check_cmd: sh /tmp/brine-golden/file-check_cmd/check.sh
mode-only-bad:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/mode-only-bad.conf
    - contents: good
    - mode: '0600'
    - check_cmd: 'false'
tmp-ext:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/tmp-ext.conf
    - contents: x
    - tmp_ext: .conf
    - check_cmd: sh /tmp/brine-golden/file-check_cmd/ext.sh
no-tmp-ext:
  file.managed:
    - name: /tmp/brine-golden/file-check_cmd/no-tmp-ext.conf
    - contents: x
    - check_cmd: sh /tmp/brine-golden/file-check_cmd/ext.sh
