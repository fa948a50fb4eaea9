#!yaml
x{{ 1 }}:
  test.nop:
    - v: "{{ grains.id }}"
