import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes `{relative path: text}` under `root`. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const full = path.join(root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}

export interface FleetTree {
  dir: string;
  states: string;
  pillar: string;
  /** Where file.managed states write (one folder per minion). */
  out: string;
}

/**
 * The state tree of the fleet e2e tests: top file by id glob and grain, includes, requisites
 * (require, watch), pillar (merged, a list replaced), file.managed from salt:// with a Jinja
 * template, and a state that fails when a pillar flag says so.
 */
export function fleetTree(): FleetTree {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-fleet-tree-'));
  const states = path.join(dir, 'states');
  const pillar = path.join(dir, 'pillar');
  const out = path.join(dir, 'out');
  mkdirSync(out);
  writeTree(states, {
    'top.sls': `base:
  '*':
    - common
  'G@role:web':
    - match: compound
    - web
  'db*':
    - db
`,
    'common/init.sls': `include:
  - .motd

common-ready:
  test.succeed_without_changes:
    - require:
      - file: motd
`,
    'common/motd.sls': `motd:
  file.managed:
    - name: {{ pillar['out'] }}/{{ grains['id'] }}/motd
    - source: salt://common/motd.j2
    - template: jinja
    - makedirs: True
`,
    'common/motd.j2': `Welcome to {{ grains['id'] }} (role {{ grains['role'] }}, tier {{ pillar['tier'] }})
Packages: {{ pillar['pkgs'] | join(', ') }}
`,
    'web.sls': `web-conf:
  file.managed:
    - name: {{ pillar['out'] }}/{{ grains['id'] }}/web.conf
    - contents: "port={{ salt['pillar.get']('web:port', 80) }}"

web-reload:
  test.succeed_with_changes:
    - onchanges:
      - file: web-conf
`,
    'db.sls': `db-check:
  test.succeed_without_changes: []
{% if pillar.get('db_fail') %}
db-broken:
  test.fail_without_changes:
    - comment: the database is not answering
    - require:
      - test: db-check
{% endif %}
`,
  });
  writeTree(pillar, {
    'top.sls': `base:
  '*':
    - common
  'web*':
    - web
`,
    'common.sls': `out: ${out}
tier: prod
pkgs: [vim, curl]
`,
    'web.sls': `tier: frontend
pkgs: [nginx]
web:
  port: 8080
`,
  });
  return { dir, states, pillar, out };
}
