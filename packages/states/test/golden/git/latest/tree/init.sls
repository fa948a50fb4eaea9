clone:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - target: /tmp/brine-golden/git-latest/clone
clone-again:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - target: /tmp/brine-golden/git-latest/clone
new-upstream-commit:
  cmd.run:
    - name: echo three > file && git commit -q -am three
    - cwd: /tmp/brine-golden/git-latest/upstream
    - env:
      - GIT_AUTHOR_NAME: Brine
      - GIT_AUTHOR_EMAIL: brine@example.com
      - GIT_COMMITTER_NAME: Brine
      - GIT_COMMITTER_EMAIL: brine@example.com
      - GIT_AUTHOR_DATE: '2024-01-02T00:00:00Z'
      - GIT_COMMITTER_DATE: '2024-01-02T00:00:00Z'
fast-forward:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - target: /tmp/brine-golden/git-latest/clone
branch-dev:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - rev: dev
    - branch: dev
    - target: /tmp/brine-golden/git-latest/dev
tag:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - rev: v1
    - target: /tmp/brine-golden/git-latest/tagged
shallow:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - depth: 1
    - target: /tmp/brine-golden/git-latest/shallow
local-change:
  cmd.run:
    - name: echo local > file
    - cwd: /tmp/brine-golden/git-latest/clone
dirty:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - target: /tmp/brine-golden/git-latest/clone
forced:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - target: /tmp/brine-golden/git-latest/clone
    - force_reset: True
not-a-repo-target:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/upstream
    - target: /tmp/brine-golden/git-latest/upstream/file
bad-url:
  git.latest:
    - name: file:///tmp/brine-golden/git-latest/no-such-repo
    - target: /tmp/brine-golden/git-latest/nothing
