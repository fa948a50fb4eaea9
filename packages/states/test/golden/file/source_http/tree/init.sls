# file.managed from http:// with source_hash (a hash, type=hash, a hash file's URL, or none with
# skip_verify), served by a local HTTP server on 127.0.0.1 (setup.sh; the Brine test runs its own).
hash-typed:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/hash-typed.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: sha256=c4c6de3f73764a2ac1b0e5f9c8eb337cc93678e1b13e36810107e57f6687e717
hash-bare-md5:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/hash-bare-md5.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: 4a2c87250ce7a854b6044437bbec0ea7
    - mode: '0640'
hash-file-by-name:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/hash-file-by-name.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: http://127.0.0.1:18841/SHA256SUMS
hash-file-target-name:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/other.conf
    - source: http://127.0.0.1:18841/other.conf
    - source_hash: http://127.0.0.1:18841/SHA256SUMS
hash-file-single:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/hash-file-single.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: http://127.0.0.1:18841/app.conf.md5
hash-file-first-hash:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/hash-file-first-hash.conf
    - source: http://127.0.0.1:18841/other.conf
    - source_hash: http://127.0.0.1:18841/ONLY_OTHER
mismatch-new:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/mismatch-new.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: sha256=d5488b4c948aea2d7d7c634273203e22a27be20fa0d380ccdb6f9b76424e6131
mismatch-existing:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/mismatch-existing.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: sha256=d5488b4c948aea2d7d7c634273203e22a27be20fa0d380ccdb6f9b76424e6131
skip-verify:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/skip-verify.conf
    - source: http://127.0.0.1:18841/app.conf
    - skip_verify: True
no-hash:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/no-hash.conf
    - source: http://127.0.0.1:18841/app.conf
existing-same:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/existing-same.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: sha256=c4c6de3f73764a2ac1b0e5f9c8eb337cc93678e1b13e36810107e57f6687e717
existing-diff:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/existing-diff.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: sha256=c4c6de3f73764a2ac1b0e5f9c8eb337cc93678e1b13e36810107e57f6687e717
missing-404:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/missing-404.conf
    - source: http://127.0.0.1:18841/missing.conf
    - skip_verify: True
missing-hash-file:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/missing-hash-file.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: http://127.0.0.1:18841/NOSUMS
bad-hash-format:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/bad-hash-format.conf
    - source: http://127.0.0.1:18841/app.conf
    - source_hash: nothex
list-fallback:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/list-fallback.conf
    - source:
      - http://127.0.0.1:18841/missing.conf
      - http://127.0.0.1:18841/app.conf
    - skip_verify: True
salt-source-ignores-hash:
  file.managed:
    - name: /tmp/brine-golden/file-source_http/salt-source.conf
    - source: salt://plain.txt
    - source_hash: sha256=d5488b4c948aea2d7d7c634273203e22a27be20fa0d380ccdb6f9b76424e6131
