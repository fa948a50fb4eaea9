/**
 * A third warm-up formula: one that asks the host (file and command queries: the template rendered
 * again with the answers) and config.get, folds a YAML scalar, names lists, and uses the Python
 * methods, tests and operators formulas write in Jinja. Most of the slowest formulas ask the host:
 * without this each of their runs compiled ~75 more of Brine's functions (the host-call path, the
 * protocol's checks of the answers).
 */
export const CALLS_TREE: Record<string, string> = {
  'calls/init.sls': [
    '{%- set tplroot = tpldir.split("/")[0] %}',
    "{%- set conf = salt['config.get']('calls:conf', default={'port': 22, 'dirs': ['/srv/a', '/srv/b/'], 'ratio': '1.5'}) %}",
    "{%- set present = salt['file.file_exists']('/etc/calls.conf') %}",
    "{%- set tool = salt['cmd.which']('callsctl') %}",
    '{%- set opts = [] %}',
    "{%- do opts.append('-p ' ~ conf.port) %}",
    "{%- do opts.extend(['-v'] * 2) %}",
    '{%- set base = conf.dirs[1:] | first %}',
    "{%- set head, sep, tail = 'a.b.c'.rpartition('.') %}",
    "{%- macro line(key, value, sep=' ') %}{{ key }}{{ sep }}{{ value }}{% endmacro %}",
    "{%- set ports = conf.keys() | list | select('equalto', 'port') | list %}",
    'calls-conf:',
    '  file.managed:',
    "    - name: {{ '{}/calls.conf'.format(base.rstrip('/')) }}",
    '    - mode: 0644',
    '    - contents: >',
    "        {{ line('port', conf.port | int + 1) }} {{ conf.ratio | float }} {{ conf.get('none', 'x') }}",
    '        {{ (present or tool is none) and conf.port >= 22 and conf.port <= 65535 and conf.port < 70000 }}',
    "        {{ opts | join(' ') }} {{ head }}{{ tail | yaml_dquote }} {{ conf.port % 7 }} {{ ports }}",
    '        {{ conf.dirs is iterable }} {{ conf.dirs is sequence }} {{ conf is mapping }} {{ base is string }}',
    "        {{ base.endswith('/') }} {{ conf.values() | list | length }} {{ tool is sameas none }} {{ line is callable }}",
    'calls-pkgs:',
    '  pkg.installed:',
    '    - names:',
    '      - calls-client',
    '      - calls-server',
    '    - require:',
    '      - file: calls-conf',
    'calls-same:',
    '  test.nop:',
    '    - names: [calls-client, calls-server]',
    '',
  ].join('\n'),
  // an SLS requisite, import_yaml, an empty template, dict.pop, ** in a call, a double-quoted
  // scalar over two lines, the file module's path helpers, config.option
  'calls/defaults.yaml': ['calls:', '  motd: "first line', '    second line"', '  retries: 3', ''].join('\n'),
  'calls/empty.jinja': '',
  'calls/more.sls': [
    'include:',
    '  - calls',
    "{%- import_yaml tpldir ~ '/defaults.yaml' as defaults %}",
    "{%- include tpldir ~ '/empty.jinja' %}",
    "{%- set extra = {'retries': 5, 'gone': true} %}",
    "{%- do extra.pop('gone') %}",
    '{%- set merged = dict(defaults.calls, **extra) %}',
    'calls-more:',
    '  test.nop:',
    '    - motd: {{ merged.motd | json }}',
    '    - retries: {{ merged.retries }}',
    "    - dir: {{ salt['file.dirname']('/srv/calls/x.conf') }}",
    "    - path: {{ salt['file.join']('/srv', 'calls') }}",
    "    - opt: {{ salt['config.option']('calls_opt', 'none') }}",
    '    - require:',
    '      - sls: calls',
    '',
  ].join('\n'),
};
