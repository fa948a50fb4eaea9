import t from 'tap';
import { basename } from 'node:path';
import { createRegistry, debconfModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * debconf.set against Salt's results. Both ran debconf-get-selections and
 * debconf-set-selections for real, in a mount namespace whose /var/cache/debconf has a private
 * upper layer: the host's answers stay as they were.
 */

const unshareOk = canUnshare();

for (const caseDir of goldenCases('debconf')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`debconf/${basename(caseDir)} ${mode}`, { skip: unshareOk || process.getuid?.() === 0 ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const registry = () => createRegistry([debconfModule()]);
      const cmd = (root: string) =>
        namespaceRunner(t, ['-m'], `mount -t overlay overlay -o 'lowerdir=/var/cache/debconf,upperdir=${root}/up,workdir=${root}/wk' /var/cache/debconf`);
      for (const r of await runGoldenCase(caseDir, mode, { registry, cmd, scratch: ['/wk'] })) t.same(r.got, r.want, r.tag);
    });
  }
}
