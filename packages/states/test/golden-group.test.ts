import t from 'tap';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { createRegistry, groupModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * group.present/absent against Salt's results, with real throwaway groups and members (fixed
 * ids): creation, gid change, members, addusers, delusers, an unknown member, removal. Needs
 * root, as CI runs.
 */
for (const caseDir of goldenCases('group')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`group/${basename(caseDir)} ${mode}`, async (t) => {
      t.teardown(() => {
        execFileSync('bash', [join(caseDir, 'cleanup.sh'), '/nonexistent'], { stdio: 'ignore' });
      });
      const registry = () => createRegistry([groupModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) t.same(r.got, r.want, r.tag);
    });
  }
}
