import t from 'tap';
import { basename, join } from 'node:path';
import { createRegistry, hostModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * host.present/absent/only against Salt's results. Salt ran with the case's hosts file
 * bind-mounted over /etc/hosts in a mount namespace; Brine edits the same file by path.
 */

for (const caseDir of goldenCases('host')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`host/${basename(caseDir)} ${mode}`, async (t) => {
      const registry = (root: string) => createRegistry([hostModule({ hostsFile: join(root, 'hosts') })]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) t.same(r.got, r.want, r.tag);
    });
  }
}
