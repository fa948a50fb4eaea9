echo_kwarg:
  module.run:
    - test.echo:
      - text: hi

echo_positional_and_false:
  module.run:
    - test.echo:
      - hello
    - test.false: []

missing_function:
  module.run:
    - no.such: []

dict_retcode:
  module.run:
    - cmd.run_all:
      - cmd: 'false'

no_shell_from_code:
  module.run:
    - cmd.run:
      - echo a | tr a b

file_basename:
  module.run:
    - file.basename:
      - path: /etc/hosts
    - test.arg:
      - 1
      - two
      - k: v

bad_arguments:
  module.run:
    - test.echo:
      - one
      - two
