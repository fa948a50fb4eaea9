add-email:
  git.config_set:
    - name: user.email
    - value: ops@example.com
    - repo: /tmp/brine-golden/git-config/repo
add-email-again:
  git.config_set:
    - name: user.email
    - value: ops@example.com
    - repo: /tmp/brine-golden/git-config/repo
change-name:
  git.config_set:
    - name: user.name
    - value: Brine Ops
    - repo: /tmp/brine-golden/git-config/repo
multivar:
  git.config_set:
    - name: core.hooks
    - multivar:
      - one
      - two
    - repo: /tmp/brine-golden/git-config/repo
number:
  git.config_set:
    - name: core.abbrev
    - value: 12
    - repo: /tmp/brine-golden/git-config/repo
both:
  git.config_set:
    - name: core.x
    - value: a
    - multivar: [a]
    - repo: /tmp/brine-golden/git-config/repo
no-repo:
  git.config_set:
    - name: user.name
    - value: x
unset-name:
  git.config_unset:
    - name: user.name
    - repo: /tmp/brine-golden/git-config/repo
unset-name-again:
  git.config_unset:
    - name: user.name
    - repo: /tmp/brine-golden/git-config/repo
unset-multivar-refused:
  git.config_unset:
    - name: remote.origin.push
    - repo: /tmp/brine-golden/git-config/repo
unset-by-value:
  git.config_unset:
    - name: remote.origin.push
    - value_regex: 'a$'
    - repo: /tmp/brine-golden/git-config/repo
unset-all:
  git.config_unset:
    - name: core.hooks
    - all: True
    - repo: /tmp/brine-golden/git-config/repo
