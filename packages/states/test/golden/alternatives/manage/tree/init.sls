install-a:
  alternatives.install:
    - name: brine-vi
    - link: /tmp/brine-golden/alternatives-manage/bin/brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-a
    - priority: 30
install-b:
  alternatives.install:
    - name: brine-vi
    - link: /tmp/brine-golden/alternatives-manage/bin/brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-b
    - priority: 50
install-a-again:
  alternatives.install:
    - name: brine-vi
    - link: /tmp/brine-golden/alternatives-manage/bin/brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-a
    - priority: 30
install-c-low:
  alternatives.install:
    - name: brine-vi
    - link: /tmp/brine-golden/alternatives-manage/bin/brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-c
    - priority: 10
set-a:
  alternatives.set:
    - name: brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-a
set-a-again:
  alternatives.set:
    - name: brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-a
set-missing:
  alternatives.set:
    - name: brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-none
auto:
  alternatives.auto:
    - name: brine-vi
auto-again:
  alternatives.auto:
    - name: brine-vi
remove-b:
  alternatives.remove:
    - name: brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-b
remove-b-again:
  alternatives.remove:
    - name: brine-vi
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-b
remove-unknown:
  alternatives.remove:
    - name: brine-none
    - path: /tmp/brine-golden/alternatives-manage/opt/vi-b
