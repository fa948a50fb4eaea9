home:
  file.recurse:
    - name: /tmp/brine-golden/file-recurse_dotfiles/home
    - source: salt://files/home
