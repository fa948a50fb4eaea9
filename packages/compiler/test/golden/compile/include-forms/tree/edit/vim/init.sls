vim:
  pkg.installed
