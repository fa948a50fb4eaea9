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
 *
 * Pending (marked todo, to be lifted when done): in test mode the file states must hand their
 * test flag to resolveOwnership (`resolveOwnership(args.user, args.group, ctx.cmd, ctx.test)` at
 * each call site in modules/file/, kept out of this change while those files were being
 * reworked); in a real apply, file.directory's change report for a new or re-owned directory.
 */
function pending(mode: 'run' | 'test', tag: string): string | undefined {
  if (!tag.startsWith('file_|-')) return undefined;
  if (mode === 'test') return 'file states do not yet pass ctx.test to resolveOwnership';
  if (tag.endsWith('_|-directory')) return "file.directory's change report (issue 21 item 8)";
  return undefined;
}

for (const caseDir of goldenCases('file-owner')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`file-owner/${basename(caseDir)} ${mode}`, async (t) => {
      t.teardown(() => {
        execFileSync('bash', [join(caseDir, 'cleanup.sh'), '/nonexistent'], { stdio: 'ignore' });
      });
      const registry = () => createRegistry([groupModule(), userModule(), fileModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) {
        const todo = pending(mode, r.tag);
        if (todo && JSON.stringify(r.got) !== JSON.stringify(r.want)) t.same(r.got, r.want, r.tag, { todo });
        else t.same(r.got, r.want, r.tag);
      }
    });
  }
}
