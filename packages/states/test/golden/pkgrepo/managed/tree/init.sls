new-file:
  pkgrepo.managed:
    - name: deb http://repo.example.invalid/brine bookworm main
    - file: /etc/apt/sources.list.d/brine.list
    - refresh: False
new-file-again:
  pkgrepo.managed:
    - name: deb http://repo.example.invalid/brine bookworm main
    - file: /etc/apt/sources.list.d/brine.list
    - refresh: False
default-file:
  pkgrepo.managed:
    - name: deb [arch=amd64] http://other.example.invalid/debian bookworm-backports main contrib
    - refresh: False
existing:
  pkgrepo.managed:
    - name: deb http://deb.example.invalid/debian bookworm main
    - file: /etc/apt/sources.list.d/existing.list
    - refresh: False
add-comp:
  pkgrepo.managed:
    - name: deb http://deb.example.invalid/debian bookworm main non-free
    - file: /etc/apt/sources.list.d/existing.list
    - refresh: False
disable:
  pkgrepo.managed:
    - name: deb http://repo.example.invalid/brine bookworm main
    - file: /etc/apt/sources.list.d/brine.list
    - disabled: True
    - refresh: False
comments:
  pkgrepo.managed:
    - name: deb http://third.example.invalid/debian bookworm main
    - file: /etc/apt/sources.list.d/third.list
    - comments:
      - managed by brine
    - refresh: False
with-key:
  pkgrepo.managed:
    - name: deb http://keyed.example.invalid/debian bookworm main
    - file: /etc/apt/sources.list.d/keyed.list
    - key_url: salt://brine-test.asc
    - refresh: False
signed-by:
  pkgrepo.managed:
    - name: deb [signed-by=/etc/apt/keyrings/brine.gpg arch=amd64] http://signed.example.invalid/debian bookworm main
    - file: /etc/apt/sources.list.d/signed.list
    - refresh: False
signed-by-again:
  pkgrepo.managed:
    - name: deb [signed-by=/etc/apt/keyrings/brine.gpg arch=amd64] http://signed.example.invalid/debian bookworm main
    - file: /etc/apt/sources.list.d/signed.list
    - refresh: False
bad-line:
  pkgrepo.managed:
    - name: deb http://only-uri.example.invalid
    - refresh: False
repo-arg:
  pkgrepo.managed:
    - name: x
    - repo: deb http://x.example.invalid/debian bookworm main
both-keys:
  pkgrepo.managed:
    - name: deb http://y.example.invalid/debian bookworm main
    - key_url: salt://brine-test.asc
    - key_text: abc
absent-src:
  pkgrepo.absent:
    - name: deb-src http://deb.example.invalid/debian bookworm main contrib
absent-missing:
  pkgrepo.absent:
    - name: deb http://nowhere.example.invalid/debian bookworm main
absent-brine:
  pkgrepo.absent:
    - name: deb http://repo.example.invalid/brine bookworm main
