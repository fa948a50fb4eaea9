{%- set conn = {'connection_unix_socket': '/tmp/brine-golden/mysql-accounts/mysqld.sock', 'connection_user': 'root', 'connection_charset': 'utf8'} %}
app-db:
  mysql_database.present:
    - name: appdb
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
app-db-again:
  mysql_database.present:
    - name: appdb
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
latin-db:
  mysql_database.present:
    - name: latin_db
    - character_set: latin1
    - collate: latin1_swedish_ci
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
latin-db-to-utf8:
  mysql_database.present:
    - name: latin_db
    - character_set: utf8mb4
    - collate: utf8mb4_general_ci
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
app-user:
  mysql_user.present:
    - name: app
    - host: localhost
    - password: first-secret
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
app-user-again:
  mysql_user.present:
    - name: app
    - host: localhost
    - password: first-secret
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
app-user-new-password:
  mysql_user.present:
    - name: app
    - host: localhost
    - password: second-secret
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
hash-user:
  mysql_user.present:
    - name: hashed
    - host: '%'
    - password_hash: '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
no-password:
  mysql_user.present:
    - name: nopass
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
passwordless-user:
  mysql_user.present:
    - name: nopass
    - allow_passwordless: True
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
app-grant:
  mysql_grants.present:
    - grant: select, insert, update
    - database: appdb.*
    - user: app
    - host: localhost
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
app-grant-again:
  mysql_grants.present:
    - grant: SELECT,INSERT
    - database: appdb.*
    - user: app
    - host: localhost
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
all-on-latin:
  mysql_grants.present:
    - grant: all privileges
    - database: latin_db.*
    - user: app
    - host: localhost
    - grant_option: True
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
bad-grant:
  mysql_grants.present:
    - grant: fly
    - database: appdb.*
    - user: app
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
revoke-insert:
  mysql_grants.absent:
    - grant: insert
    - database: appdb.*
    - user: app
    - host: localhost
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
revoke-missing:
  mysql_grants.absent:
    - grant: delete
    - database: appdb.*
    - user: app
    - host: localhost
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
drop-user:
  mysql_user.absent:
    - name: hashed
    - host: '%'
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
drop-user-again:
  mysql_user.absent:
    - name: hashed
    - host: '%'
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
drop-db:
  mysql_database.absent:
    - name: latin_db
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
drop-db-again:
  mysql_database.absent:
    - name: latin_db
    {%- for k, v in conn.items() %}
    - {{ k }}: {{ v }}
    {%- endfor %}
unreachable:
  mysql_database.present:
    - name: appdb
    - connection_unix_socket: /tmp/brine-golden/mysql-accounts/no-such.sock
    - connection_user: root
