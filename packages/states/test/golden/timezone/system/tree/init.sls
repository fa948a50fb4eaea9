no-such-zone:
  timezone.system:
    - name: Mars/Olympus
already-set:
  timezone.system:
    - name: Etc/UTC
change-zone:
  timezone.system:
    - name: Europe/Paris
    - utc: False
same-again:
  timezone.system:
    - name: Europe/Paris
