include:
  - .install
  - .config
  - .service
