nginx-conf:
  file.managed:
    - name: /etc/nginx/nginx.conf
    - user: {{ params.get('owner', 'root') }}
