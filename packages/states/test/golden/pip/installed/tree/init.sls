pinned:
  pip.installed:
    - name: brinedemo==1.0
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
pinned-again:
  pip.installed:
    - name: brinedemo==1.0
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
several:
  pip.installed:
    - name: ignored
    - pkgs:
      - brinedemo
      - brineother
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
newer:
  pip.installed:
    - name: brinedemo>=2.0
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
remove-other:
  pip.removed:
    - name: brineother
    - bin_env: /tmp/brine-golden/pip-installed/venv
remove-other-again:
  pip.removed:
    - name: brineother
    - bin_env: /tmp/brine-golden/pip-installed/venv
requirements:
  pip.installed:
    - name: reqs
    - requirements: /tmp/brine-golden/pip-installed/requirements.txt
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
requirements-again:
  pip.installed:
    - name: reqs
    - requirements: /tmp/brine-golden/pip-installed/requirements.txt
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
bad-spec:
  pip.installed:
    - name: brinedemo=1.0
    - bin_env: /tmp/brine-golden/pip-installed/venv
missing-version:
  pip.installed:
    - name: brinedemo==9.9
    - bin_env: /tmp/brine-golden/pip-installed/venv
    - no_index: True
    - find_links: /tmp/brine-golden/pip-installed/wheels
no-venv:
  pip.installed:
    - name: brinedemo
    - bin_env: /tmp/brine-golden/pip-installed/no-such-venv
