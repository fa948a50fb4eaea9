behind:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest-existing/upstream
    - target: /tmp/brine-golden/git-latest-existing/behind
up-to-date:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest-existing/upstream
    - target: /tmp/brine-golden/git-latest-existing/ahead-of-nothing
    - rev: main
    - depth: 1
dirty:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest-existing/upstream
    - target: /tmp/brine-golden/git-latest-existing/dirty
    - force_reset: True
ahead:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest-existing/upstream
    - target: /tmp/brine-golden/git-latest-existing/ahead
ahead-forced:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest-existing/upstream
    - target: /tmp/brine-golden/git-latest-existing/ahead
    - force_reset: True
other-remote:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest-existing/behind
    - target: /tmp/brine-golden/git-latest-existing/current
