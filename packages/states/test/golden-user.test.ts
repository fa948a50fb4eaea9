import t from 'tap';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { createRegistry, groupModule, userModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * user.present/absent against Salt's results, with real throwaway accounts (fixed ids, so the
 * answers are the same on every machine): creation with GECOS fields, changes, refused uid and
 * gid changes, groups, a system user, removal. Needs root, as CI runs.
 */
for (const caseDir of goldenCases('user')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`user/${basename(caseDir)} ${mode}`, async (t) => {
      t.teardown(() => {
        execFileSync('bash', [join(caseDir, 'cleanup.sh'), '/nonexistent'], { stdio: 'ignore' });
      });
      const registry = () => createRegistry([userModule(), groupModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) t.same(r.got, r.want, r.tag);
    });
  }
}
