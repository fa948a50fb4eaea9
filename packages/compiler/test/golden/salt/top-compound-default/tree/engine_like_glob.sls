engine_like_glob_state:
  test.nop: []
