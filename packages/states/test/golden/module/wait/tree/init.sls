wait_echo:
  module.wait:
    - name: test.echo
    - text: waited

wait_new:
  module.wait:
    - test.echo:
      - text: waited
