include:
  - .db
  - web.*
  - base: edit.vim
app_state:
  test.nop: []
