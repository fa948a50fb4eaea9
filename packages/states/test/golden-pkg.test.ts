import t from 'tap';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, pkgModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * pkg.installed in test mode against Salt 3007's results, in a private package world: the case's own dpkg
 * database, apt lists, apt cache and a local file: repository of tiny real packages, bound over
 * the host's in a mount namespace (no network), so apt-get and dpkg run for real and the host's
 * packages are untouched. salt-run.json holds Salt's real apply of the same case too; Brine's
 * apply still words several outcomes differently (already-installed lists, downgrades, apt's
 * errors), which is not this case's subject yet; installed-apply is checked in both modes.
 */
for (const caseDir of goldenCases('pkg')) {
  for (const mode of basename(caseDir) === 'installed' ? (['test'] as const) : (['run', 'test'] as const)) {
    t.test(`pkg/${basename(caseDir)} ${mode}`, { skip: canUnshare() ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const nsSetup = readFileSync(join(caseDir, 'ns.sh'), 'utf8').trim().split('\n').join(' && ');
      const cmd = (root: string) => namespaceRunner(t, ['-m', '-n'], `set -- ${JSON.stringify(root)}; ${nsSetup}`);
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => createRegistry([pkgModule()]), cmd })) t.same(r.got, r.want, r.tag);
    });
  }
}
