local-clock-kept:
  timezone.system:
    - name: Etc/UTC
    - utc: False
clock-to-utc:
  timezone.system:
    - name: Etc/UTC
zone-and-clock:
  timezone.system:
    - name: Asia/Tokyo
