{% from "webapp/map.jinja" import webapp with context %}
webapp-pkg:
  pkg.installed:
    - name: {{ webapp.pkg }}
