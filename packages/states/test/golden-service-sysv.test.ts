import t from 'tap';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, serviceModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * The service states where systemd is not PID 1, against Salt 3007's results: `offline` (systemd
 * installed but not running, as in containers and image builds: running/dead are no-ops, the
 * rest goes through Debian's SysV functions) and `sysv` (no systemd at all). Both ran real init
 * scripts, `service`, `update-rc.d` and `insserv` (missing here, as on Debian 12) in a mount
 * namespace where private copies are bound over /etc/init.d, /etc/rc?.d and
 * /etc/systemd/system, so the host's boot links and services are untouched.
 */

/** What the real apply left: the rc links and the scripts' start/stop logs, as Salt left them. */
function leftBehind(root: string, want: Record<string, { text?: string }>) {
  const got: Record<string, string | null> = {};
  const expected: Record<string, string | null> = {};
  for (const [p, v] of Object.entries(want)) if (/^(etc\/rc.\.d|run)\//.test(p)) expected[p] = p.startsWith('run/') ? (v.text ?? null) : 'link';
  for (const d of readdirSync(join(root, 'etc')).filter((n) => /^rc.\.d$/.test(n)))
    for (const n of readdirSync(join(root, 'etc', d))) got[`etc/${d}/${n}`] = readlinkSync(join(root, 'etc', d, n)) ? 'link' : null;
  for (const n of readdirSync(join(root, 'run'))) got[`run/${n}`] = readFileSync(join(root, 'run', n), 'utf8');
  return { got, expected };
}

for (const caseDir of goldenCases('service').filter((c) => ['offline', 'sysv'].includes(basename(c)))) {
  const name = basename(caseDir);
  for (const mode of ['run', 'test'] as const) {
    t.test(`service/${name} ${mode}`, { skip: canUnshare() ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const nsSetup = readFileSync(join(caseDir, 'ns.sh'), 'utf8').trim().split('\n').join(' && ');
      const registry = (root: string) => createRegistry([serviceModule({ systemdRunning: () => false, offline: () => name === 'offline', root })]);
      const cmd = (root: string) => namespaceRunner(t, ['-m', '-n'], `set -- ${JSON.stringify(root)}; ${nsSetup}`);
      const tree = JSON.parse(readFileSync(join(caseDir, 'salt-tree.json'), 'utf8')) as Record<string, { text?: string }>;
      const saltRoot = `/tmp/brine-golden/service-${name}`;
      const after =
        mode === 'run'
          ? (root: string) => {
              const { got, expected } = leftBehind(root, JSON.parse(JSON.stringify(tree).split(saltRoot).join(root)) as typeof tree);
              t.same(got, expected, 'the rc links and service logs Salt left');
            }
          : undefined;
      for (const r of await runGoldenCase(caseDir, mode, { registry, cmd, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
