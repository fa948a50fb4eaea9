import t from 'tap';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { createRegistry, fileModule, groupModule, userModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * File states owned by accounts the same run creates, against Salt's results: test=True warns and
 * predicts the change (Salt's _check_user) instead of failing, a real apply creates the accounts
 * first, and an owner that never comes fails with Salt's words. Real throwaway accounts with
 * fixed ids; needs root, as CI runs.
 */
for (const caseDir of goldenCases('file-owner')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`file-owner/${basename(caseDir)} ${mode}`, async (t) => {
      t.teardown(() => {
        execFileSync('bash', [join(caseDir, 'cleanup.sh'), '/nonexistent'], { stdio: 'ignore' });
      });
      const registry = () => createRegistry([groupModule(), userModule(), fileModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) {
        t.same(r.got, r.want, r.tag);
      }
    });
  }
}
