META:
  name: app
  params:
    release: {description: documented for every state of the file}

app-config:
  META:
    params:
      db:
        properties:
          host: {description: database host}
      servers:
        items:
          name: {}
  file.managed:
    - name: /etc/app.conf
    - contents: |
        {{ params.get('db').get('host') }}:{{ params.get('db').get('port', 5432) }}
        {{ params['servers'][0].name }} {{ params['servers'][0].ip }}
        {{ params.get('release') }}

app-pkg:
  pkg.installed:
    - name: app
    - version: {{ params.get('release') }}-{{ params.get('build', 1) }}
