# the test user brinecron1 (made once) with a crontab: a line before Salt's tag, an env
# variable, a job with an identifier, one without, a special job and a commented one
id brinecron1 >/dev/null 2>&1 || useradd -M -s /bin/sh brinecron1
crontab -u brinecron1 - <<'TAB'
MAILTO=""
# Lines below here are managed by Salt, do not edit
SHELL=/bin/sh
PATH=/usr/bin:/bin
# SALT_CRON_IDENTIFIER:job1
5 * * * * /bin/true one
* * * * * /bin/old-no-id
# keep me SALT_CRON_IDENTIFIER:spec1
@daily /bin/special-one
# a note
#DISABLED#0 1 * * * /bin/disabled
TAB
