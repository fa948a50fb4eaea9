include:
  - ..common
app_db:
  test.nop: []
