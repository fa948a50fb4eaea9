new-with-hash:
  user.present:
    - name: brine-gp1
    - uid: 4311
    - createhome: False
    - password: '$6$brinesaltone$ZQuAXhujEY8ej9YqYAcVzgSNi3BoWPL0sQUFqTGi/KEqwD2EGQGEZSJn/oz2/13aAM2HoxXu3Hqp5/5ZLLKp6/'

same-hash:
  user.present:
    - name: brine-gp1
    - password: '$6$brinesaltone$ZQuAXhujEY8ej9YqYAcVzgSNi3BoWPL0sQUFqTGi/KEqwD2EGQGEZSJn/oz2/13aAM2HoxXu3Hqp5/5ZLLKp6/'

not-enforced:
  user.present:
    - name: brine-gp1
    - password: '$6$brinesalttwo$4kfec2ndLI09TSHnxc.KlSC/a.EZZd/2D7B5q3gf6pvPBaMWlmewnf8lO6ptk0KI0/tLs.GwbchzJ8/VUlKuO/'
    - enforce_password: False

new-hash:
  user.present:
    - name: brine-gp1
    - password: '$6$brinesalttwo$4kfec2ndLI09TSHnxc.KlSC/a.EZZd/2D7B5q3gf6pvPBaMWlmewnf8lO6ptk0KI0/tLs.GwbchzJ8/VUlKuO/'

new-empty:
  user.present:
    - name: brine-gp3
    - uid: 4313
    - createhome: False
    - empty_password: True

old-salt-same:
  user.present:
    - name: brine-gp4
    - password: old-secret
    - hash_password: True

old-salt-changed:
  user.present:
    - name: brine-gp4
    - password: new-secret
    - hash_password: True

emptied:
  user.present:
    - name: brine-gp4
    - empty_password: True
