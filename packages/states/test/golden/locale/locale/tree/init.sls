generate:
  locale.present:
    - name: de_DE.UTF-8
generated-already:
  locale.present:
    - name: de_DE.UTF-8
c-utf8-built-in:
  locale.present:
    - name: C.UTF-8
not-supported:
  locale.present:
    - name: xx_YY.UTF-8
system-locale:
  locale.system:
    - name: de_DE.UTF-8
    - require:
      - locale: generate
system-locale-again:
  locale.system:
    - name: de_DE.UTF-8
