{% set root = '/tmp/brine-golden/mount-mounts' %}
fresh-mount:
  mount.mounted:
    - name: {{ root }}/fresh
    - device: brine-fresh
    - fstype: tmpfs
    - opts: size=1m,noexec
    - config: {{ root }}/fstab

same-mount:
  mount.mounted:
    - name: {{ root }}/same/
    - device: brine-same
    - fstype: tmpfs
    - opts: size=1m
    - config: {{ root }}/fstab

grow-mount:
  mount.mounted:
    - name: {{ root }}/grow
    - device: brine-grow
    - fstype: tmpfs
    - opts:
      - size=2m
      - mode=755
    - config: {{ root }}/fstab

made-mount:
  mount.mounted:
    - name: {{ root }}/made/here
    - device: brine-made
    - fstype: tmpfs
    - mkmnt: True
    - config: {{ root }}/fstab

missing-mount:
  mount.mounted:
    - name: {{ root }}/missing
    - device: brine-missing
    - fstype: tmpfs
    - config: {{ root }}/fstab

later-mount:
  mount.mounted:
    - name: {{ root }}/later
    - device: brine-later
    - fstype: tmpfs
    - mount: False
    - config: {{ root }}/fstab

not-persisted:
  mount.mounted:
    - name: {{ root }}/plain
    - device: brine-plain
    - fstype: tmpfs
    - persist: False

no-fstab:
  mount.mounted:
    - name: {{ root }}/plain
    - device: brine-plain
    - fstype: tmpfs
    - config: {{ root }}/nowhere/fstab

gone-mount:
  mount.unmounted:
    - name: {{ root }}/gone
    - config: {{ root }}/fstab
    - persist: True

already-unmounted:
  mount.unmounted:
    - name: {{ root }}/already
    - config: {{ root }}/fstab
    - persist: True

no-device:
  mount.mounted:
    - name: {{ root }}/plain
    - device: ''
    - fstype: tmpfs
