# Salt 3007 on a Debian host where systemd is installed but is not PID 1 (containers, image
# builds): its systemd module runs "offline", the debian_service functions answer the rest.
running-on:
  service.running:
    - name: brine-svc-on
running-off:
  service.running:
    - name: brine-svc-off
    - enable: True
running-missing:
  service.running:
    - name: brine-svc-missing
dead-on:
  service.dead:
    - name: brine-svc-on
enabled-on:
  service.enabled:
    - name: brine-svc-on
enabled-off:
  service.enabled:
    - name: brine-svc-off
enabled-missing:
  service.enabled:
    - name: brine-svc-missing
disabled-off:
  service.disabled:
    - name: brine-svc-off
disabled-missing:
  service.disabled:
    - name: brine-svc-missing
disabled-on:
  service.disabled:
    - name: brine-svc-on
