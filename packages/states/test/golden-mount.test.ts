import t from 'tap';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, mountModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * mount.mounted/unmounted against Salt's results. Salt ran in a private mount namespace whose
 * tmpfs mounts the case's ns.sh made; Brine runs every command of the case (cat
 * /proc/self/mountinfo, mount, umount) in such a namespace too, so real mounts come and go and
 * the host's table is untouched. The fstab is the case's own file; after the real run it must
 * read as Salt left it.
 */

for (const caseDir of goldenCases('mount')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`mount/${basename(caseDir)} ${mode}`, { skip: canUnshare() || process.getuid?.() === 0 ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const nsSetup = readFileSync(join(caseDir, 'ns.sh'), 'utf8');
      const registry = (root: string) => createRegistry([mountModule({ cacheFile: join(root, 'mount-cache.json') })]);
      const cmd = (root: string) => namespaceRunner(t, ['-m'], `set -- ${JSON.stringify(root)}; ${nsSetup.replace(/\n/g, '; ').replace(/#[^;]*;/g, '')} true`);
      const after = (root: string) => {
        if (mode !== 'run') return;
        for (const [rel, want] of Object.entries(JSON.parse(readFileSync(join(caseDir, 'salt-files.json'), 'utf8')) as Record<string, string>)) {
          t.equal(readFileSync(join(root, rel), 'utf8'), want.split(`/tmp/brine-golden/${basename(root)}`).join(root), `${rel} as Salt left it`);
        }
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, cmd, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
