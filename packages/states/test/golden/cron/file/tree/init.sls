install-from-source:
  cron.file:
    - name: salt://crontab.txt
    - user: brinecron2
same-again:
  cron.file:
    - name: salt://crontab.txt
    - user: brinecron2
keep-existing:
  cron.file:
    - name: salt://crontab.txt
    - user: brinecron3
    - replace: False
replace-existing:
  cron.file:
    - name: salt://crontab.txt
    - user: brinecron3
no-such-user:
  cron.file:
    - name: salt://crontab.txt
    - user: brine-no-such-user
