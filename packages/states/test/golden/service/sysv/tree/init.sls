# Salt 3007 on a Debian host without systemd (SysV init, as in Brine's own containers): the
# debian_service functions, through /etc/init.d, the rc links and the `service` command.
running-on:
  service.running:
    - name: brine-svc-on
running-off:
  service.running:
    - name: brine-svc-off
running-missing:
  service.running:
    - name: brine-svc-missing
running-on-disable:
  service.running:
    - name: brine-svc-on
    - enable: False
dead-other:
  service.dead:
    - name: brine-svc-other
dead-missing:
  service.dead:
    - name: brine-svc-missing
dead-other-again:
  service.dead:
    - name: brine-svc-other
enabled-off:
  service.enabled:
    - name: brine-svc-off
disabled-missing:
  service.disabled:
    - name: brine-svc-missing
