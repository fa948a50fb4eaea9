import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import type { main as Main } from './main.js';
import { CALLS_TREE } from './snapshot-warm-up-calls.js';
import { STACK_TREE } from './snapshot-warm-up-stack.js';

/**
 * A small formula in the shape of the real ones (a map.jinja imported with context, grains.filter_by,
 * pillar.get, a loop over dictsort, the yaml filter, a require): compiling it while the snapshot is
 * built leaves the compile path's functions compiled and its lazily loaded modules initialised.
 */
const TREE: Record<string, string> = {
  'top.sls': "base:\n  '*':\n    - app\n    - stack\n    - calls.more\n",
  'app/map.jinja': [
    "{% set os_map = salt['grains.filter_by']({'Debian': {'pkg': 'nginx', 'hosts': {'a': '10.0.0.1'}}, 'RedHat': {'pkg': 'httpd'}}, default='Debian') %}",
    "{% set app = salt['pillar.get']('app', default=os_map, merge=True) %}",
    '',
  ].join('\n'),
  'app/init.sls': [
    '{% from "app/map.jinja" import app with context %}',
    'app-pkg:',
    '  pkg.installed:',
    '    - name: {{ app.pkg }}',
    '{% for name, ip in app.hosts | dictsort %}',
    'host-{{ name }}:',
    '  host.present:',
    '    - ip: {{ ip }}',
    '    - require:',
    '      - pkg: app-pkg',
    '{% endfor %}',
    'app-conf:',
    '  file.managed:',
    '    - name: /etc/app.conf',
    '    - contents: |',
    '        {{ app | yaml(False) | indent(8) }}',
    '',
  ].join('\n'),
  'pillar/top.sls': "base:\n  '*':\n    - app\n    - stack\n",
  'pillar/app.sls': 'app:\n  hosts:\n    b: 10.0.0.2\n',
};

/**
 * A tree applied while the snapshot is built (test=True, then for real; printed as JSON and by the
 * highstate outputter): new files, one in place, a mode, a folder, a template, test states and
 * requires leave the runtime, those state modules and the outputs compiled and initialised. What
 * it fills in that belongs to the build host (the clock's origin, umask, temp-name bytes, account
 * tables, availability) is forgotten at restore. File names are under `out`.
 */
function applyTree(out: string): Record<string, string> {
  return {
    'warm/init.sls': [
      'new-file:',
      '  file.managed:',
      `    - name: ${out}/new.txt`,
      '    - contents: new',
      '    - makedirs: True',
      'same-file:',
      '  file.managed:',
      `    - name: ${out}/same.txt`,
      '    - contents: same',
      `    - user: ${userInfo().username}`,
      '    - require:',
      '      - file: new-file',
      'changed-file:',
      '  file.managed:',
      `    - name: ${out}/changed.txt`,
      '    - contents: changed',
      "    - mode: '0640'",
      'noted:',
      '  test.succeed_with_changes:',
      '    - require:',
      '      - file: changed-file',
      'nothing:',
      '  test.nop: []',
      'folder:',
      '  file.directory:',
      `    - name: ${out}/folder`,
      'from-source:',
      '  file.managed:',
      `    - name: ${out}/folder/conf`,
      '    - source: salt://warm/conf.j2',
      '    - template: jinja',
      '    - context:',
      '        port: 80',
      '    - require:',
      '      - file: folder',
      '',
    ].join('\n'),
    'warm/conf.j2': 'port {{ port }} on {{ grains.os }}\n',
    'out/same.txt': 'same\n',
    'out/changed.txt': 'before\n',
  };
}

/**
 * Runs the warm-up commands in a fresh temporary folder (removed after); throws when one fails.
 * Only Brine's own code may run here: a package from node_modules loaded now (the yaml package,
 * which the yaml output loads) makes every run of the snapshot fail an assertion of Node's.
 */
export async function warmUp(main: typeof Main): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'brine-snapshot-'));
  // nothing of it written to the builder's caches (their folders are forgotten at restore anyway)
  const saved = { BRINE_TEMPLATE_CACHE: process.env.BRINE_TEMPLATE_CACHE, BRINE_PROBE_CACHE: process.env.BRINE_PROBE_CACHE };
  process.env.BRINE_TEMPLATE_CACHE = process.env.BRINE_PROBE_CACHE = 'off';
  try {
    for (const [rel, text] of Object.entries({ ...TREE, ...STACK_TREE, ...CALLS_TREE, ...applyTree(path.join(dir, 'out')) })) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    const common = ['--file-root', dir, '--pillar-root', path.join(dir, 'pillar'), '--id', 'warm-up', '--grains', path.join(dir, 'grains.json')];
    for (const args of [
      ['local', 'state.show_lowstate', ...common, '--out', 'json'],
      ['local', 'state.show_highstate', ...common, '--out', 'json'],
      ['local', 'state.apply', 'warm', 'test=True', ...common, '--out', 'json'],
      ['local', 'state.apply', 'warm', ...common, '--out', 'json'],
      ['local', 'state.apply', 'warm', 'test=True', ...common],
      ['local', 'state.apply', 'warm', ...common],
    ]) {
      let errors = '';
      const code = await main(args, { stdout: () => {}, stderr: (t) => void (errors += t), cwd: dir, env: {} });
      if (code !== 0) throw new Error(`the warm-up \`brine ${args.slice(0, 2).join(' ')}\` failed (${code}): ${errors}`);
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
