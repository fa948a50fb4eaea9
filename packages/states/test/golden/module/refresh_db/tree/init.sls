# pkg.refresh_db through module.run (as apt-formula's apt.refresh_db), both syntaxes, against a
# local file: repository (setup.sh; ns.sh binds the case's apt dirs over the host's).
apt.refresh_db:
  module.run:
    - name: pkg.refresh_db
refresh-new-syntax:
  module.run:
    - pkg.refresh_db: []
