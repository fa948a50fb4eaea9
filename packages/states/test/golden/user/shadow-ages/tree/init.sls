# the password-ageing fields of /etc/shadow (date, mindays, maxdays, inactdays, warndays, expire)
new-with-ages:
  user.present:
    - name: brine-gs1
    - uid: 4331
    - createhome: False
    - date: 19000
    - mindays: 1
    - maxdays: 90
    - inactdays: 3
    - warndays: 5
    - expire: 20000
same-ages:
  user.present:
    - name: brine-gs1
    - createhome: False
    - mindays: 1
    - maxdays: 90
    - expire: 20000
change-ages:
  user.present:
    - name: brine-gs1
    - createhome: False
    - mindays: 2
    - warndays: 6
    - expire: 20001
missing-group-first:
  user.present:
    - name: brine-gs2
    - uid: 4332
    - createhome: False
    - groups:
      - brine-gs-no-such-group
    - expire: 16426
