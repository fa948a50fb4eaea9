import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, cronModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';
import { which } from '../src/util/which.js';

// CI runs as root with every tool installed (scripts/test-deps.sh): there a missing tool fails the
// test instead of skipping it.
const asRoot = process.getuid?.() === 0;

/**
 * cron.present/absent/env_present/env_absent against Salt's results, on the real crontab of a
 * test user the case's setup.sh makes (cleanup.sh removes it). After the real run the user's
 * crontab must read as Salt left it (salt-after.txt).
 */

const runnable = process.getuid?.() === 0 && which('crontab') !== undefined && which('useradd') !== undefined;

for (const caseDir of goldenCases('cron')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`cron/${basename(caseDir)} ${mode}`, { skip: runnable || asRoot ? false : 'needs root, crontab and useradd' }, async (t) => {
      t.teardown(() => {
        if (existsSync(join(caseDir, 'cleanup.sh'))) execFileSync('bash', [join(caseDir, 'cleanup.sh'), '/nonexistent'], { stdio: 'pipe' });
      });
      const registry = () => createRegistry([cronModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) t.same(r.got, r.want, r.tag);
      const after = join(caseDir, 'salt-after.txt');
      if (mode === 'run' && existsSync(after)) {
        t.equal(execFileSync('bash', [join(caseDir, 'after.sh'), '/nonexistent'], { encoding: 'utf8' }), readFileSync(after, 'utf8'), 'the crontab Salt left');
      }
    });
  }
}
