import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
      // the account files as Salt left them (the password hashes), where the case records them
      const after = () => {
        if (mode === 'run' && existsSync(join(caseDir, 'after.sh'))) {
          t.equal(
            execFileSync('bash', [join(caseDir, 'after.sh')], { encoding: 'utf8' }),
            readFileSync(join(caseDir, 'salt-after.txt'), 'utf8'),
            'accounts as Salt left them',
          );
        }
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
