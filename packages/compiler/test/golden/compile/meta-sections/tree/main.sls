META:
  name: web server
  params:
    port: the port to listen on
nginx:
  META:
    params:
      port: used in the config
  test.nop:
    - port: {{ params.get('port', 80) }}
