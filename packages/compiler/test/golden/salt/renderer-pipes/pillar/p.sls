#!yaml
p: "{{ grains.id }}"
