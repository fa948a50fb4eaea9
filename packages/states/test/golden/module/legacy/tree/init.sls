legacy_echo:
  module.run:
    - name: test.echo
    - text: hi

legacy_m_name:
  module.run:
    - name: user.info
    - m_name: root

legacy_missing_arg:
  module.run:
    - name: test.echo

legacy_missing_function:
  module.run:
    - name: no.such

legacy_false:
  module.run:
    - name: test.false

legacy_default:
  module.run:
    - name: file.contains_regex
    - path: /etc/hosts
    - regex: 'localhost'
