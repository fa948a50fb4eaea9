brine-test-answers:
  debconf.set:
    - name: brine-test
    - data:
        'brine-test/root_password': {'type': 'password', 'value': 's3cret'}
        'brine-test/enabled': {'type': 'boolean', 'value': True}
        'brine-test/mode': {'type': 'select', 'value': 'fast'}
same-answers-again:
  debconf.set:
    - name: brine-test
    - data:
        'brine-test/enabled': {'type': 'boolean', 'value': True}
        'brine-test/mode': {'type': 'select', 'value': 'fast'}
one-changed:
  debconf.set:
    - name: brine-test
    - data:
        'brine-test/mode': {'type': 'select', 'value': 'slow'}
        'brine-test/enabled': {'type': 'boolean', 'value': True}
existing-package:
  debconf.set:
    - name: base-passwd
    - data:
        'base-passwd/group-add': {'type': 'boolean', 'value': True}
