import t from 'tap';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, ufwModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * The ufw states against the results of the ufw formula's own Python module under Salt. Both ran
 * the real ufw in a fresh network namespace (its own iptables) and mount namespace (copies of
 * /etc/ufw and /etc/default/ufw bound over the real ones), so the host's firewall is untouched.
 */

for (const caseDir of goldenCases('ufw')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`ufw/${basename(caseDir)} ${mode}`, { skip: canUnshare() || process.getuid?.() === 0 ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const nsSetup = readFileSync(join(caseDir, 'ns.sh'), 'utf8').trim().split('\n').join(' && ');
      const registry = () => createRegistry([ufwModule()]);
      const cmd = (root: string) => namespaceRunner(t, ['-m', '-n'], `set -- ${JSON.stringify(root)}; ${nsSetup}`);
      for (const r of await runGoldenCase(caseDir, mode, { registry, cmd })) t.same(r.got, r.want, r.tag);
    });
  }
}
