import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, hostModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * host.present/absent/only against Salt's results. Salt ran with the case's hosts file
 * bind-mounted over /etc/hosts in a mount namespace; Brine edits the same file by path, and after
 * the real run it must read as Salt left it (salt-files.json).
 */

for (const caseDir of goldenCases('host')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`host/${basename(caseDir)} ${mode}`, async (t) => {
      const registry = (root: string) => createRegistry([hostModule({ hostsFile: join(root, 'hosts') })]);
      const filesJson = join(caseDir, 'salt-files.json');
      const after = (root: string) => {
        // the files Salt left are part of the case: a missing salt-files.json fails (readFileSync throws)
        if (mode !== 'run') return;
        for (const [rel, want] of Object.entries(JSON.parse(readFileSync(filesJson, 'utf8')) as Record<string, string | null>)) {
          const p = join(root, rel);
          t.equal(existsSync(p) ? readFileSync(p, 'utf8') : null, want, `file ${rel} as Salt left it`);
        }
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
