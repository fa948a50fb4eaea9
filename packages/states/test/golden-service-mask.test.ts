import t from 'tap';
import { basename, join } from 'node:path';
import { createRegistry, serviceModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';
import { which } from './which.js';

// CI runs as root with every tool installed (scripts/test-deps.sh): there a missing tool fails the
// test instead of skipping it.
const asRoot = process.getuid?.() === 0;

/**
 * service.masked/unmasked against Salt's recorded results (record.py: Salt's state and systemd
 * functions with `systemctl --root`), run here the same way: the real systemctl, offline, on a
 * temp root, since the test host runs no systemd.
 */
for (const caseDir of goldenCases('service').filter((c) => basename(c) === 'masked')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`service/${basename(caseDir)} ${mode}`, { skip: which('systemctl') || asRoot ? false : 'systemctl not installed' }, async (t) => {
      const registry = (root: string) => createRegistry([serviceModule({ systemdRunning: () => true, root: join(root) })]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) t.same(r.got, r.want, r.tag);
    });
  }
}
