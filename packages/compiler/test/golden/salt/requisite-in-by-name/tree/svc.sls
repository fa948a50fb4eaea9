# an ID named like the service's name, holding only a pkg
ntp:
  pkg.installed:
    - name: ntp

ntp_conf:
  file.managed:
    - name: /tmp/brine-golden-ntp.conf
    - watch_in:
      - service: ntp
    - require_in:
      - pkg: ntp

ntpd:
  service.running:
    - name: ntp
    - watch:
      - file: ntp_conf

# a user's extend may add a state to an existing ID
extend:
  ntp:
    cmd:
      - run
      - name: echo extended
