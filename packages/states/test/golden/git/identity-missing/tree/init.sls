# the identity file is checked before the command runs as the user (who need not exist)
missing-identity-unknown-user:
  git.latest:
    - name: file:///tmp/brine-golden/git-identity-missing/upstream
    - target: /tmp/brine-golden/git-identity-missing/clone1
    - user: brine-i21-no-such-user
    - identity: /tmp/brine-golden/git-identity-missing/no_such_key
missing-identities:
  git.latest:
    - name: file:///tmp/brine-golden/git-identity-missing/upstream
    - target: /tmp/brine-golden/git-identity-missing/clone2
    - identity:
      - /tmp/brine-golden/git-identity-missing/no_such_key
      - /tmp/brine-golden/git-identity-missing/other_missing_key
one-identity-present:
  git.latest:
    - name: file:///tmp/brine-golden/git-identity-missing/upstream
    - target: /tmp/brine-golden/git-identity-missing/clone3
    - identity:
      - /tmp/brine-golden/git-identity-missing/no_such_key
      - /tmp/brine-golden/git-identity-missing/present_key
