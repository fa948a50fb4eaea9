unchanged:
  cron.present:
    - name: /bin/true one
    - user: brinecron1
    - minute: 5
    - identifier: job1
new-job:
  cron.present:
    - name: /bin/new
    - user: brinecron1
    - minute: 10
    - hour: 2
    - comment: nightly run
new-commented:
  cron.present:
    - name: /bin/off
    - user: brinecron1
    - minute: 0
    - commented: True
    - identifier: OFF
no-id-gets-id:
  cron.present:
    - name: /bin/old-no-id
    - user: brinecron1
update-time:
  cron.present:
    - name: /bin/true one
    - user: brinecron1
    - minute: 5
    - hour: 3
    - identifier: job1
rename-by-id:
  cron.present:
    - name: /bin/true renamed
    - user: brinecron1
    - minute: 5
    - hour: 3
    - identifier: job1
special-same:
  cron.present:
    - name: /bin/special-one
    - user: brinecron1
    - special: '@daily'
    - identifier: spec1
    - comment: keep me
special-change:
  cron.present:
    - name: /bin/special-one
    - user: brinecron1
    - special: '@weekly'
    - identifier: spec1
special-new:
  cron.present:
    - name: /bin/hourly
    - user: brinecron1
    - special: '@hourly'
gone:
  cron.absent:
    - name: /bin/disabled
    - user: brinecron1
gone-again:
  cron.absent:
    - name: /bin/disabled
    - user: brinecron1
special-gone:
  cron.absent:
    - name: /bin/hourly
    - user: brinecron1
    - special: '@hourly'
env-new:
  cron.env_present:
    - name: FOO
    - value: bar
    - user: brinecron1
env-same:
  cron.env_present:
    - name: SHELL
    - value: /bin/sh
    - user: brinecron1
env-update:
  cron.env_present:
    - name: PATH
    - value: /usr/local/bin:/usr/bin:/bin
    - user: brinecron1
env-empty:
  cron.env_present:
    - name: EMPTY
    - user: brinecron1
env-gone:
  cron.env_absent:
    - name: SHELL
    - user: brinecron1
env-gone-again:
  cron.env_absent:
    - name: SHELL
    - user: brinecron1
