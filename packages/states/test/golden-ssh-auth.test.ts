import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, sshAuthModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';
import { which } from '../src/util/which.js';

// CI runs as root with every tool installed (scripts/test-deps.sh): there a missing tool fails the
// test instead of skipping it.
const asRoot = process.getuid?.() === 0;

/**
 * ssh_auth.present/absent against Salt's results, on the authorized_keys of a test user the
 * case's setup.sh makes with its home in the case's root (cleanup.sh removes the user). After
 * the real run the key files must read as Salt left them (salt-files.json).
 */

const runnable = process.getuid?.() === 0 && which('useradd') !== undefined;

for (const caseDir of goldenCases('ssh_auth')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`ssh_auth/${basename(caseDir)} ${mode}`, { skip: runnable || asRoot ? false : 'needs root and useradd' }, async (t) => {
      t.teardown(() => {
        if (existsSync(join(caseDir, 'cleanup.sh'))) execFileSync('bash', [join(caseDir, 'cleanup.sh'), '/nonexistent'], { stdio: 'pipe' });
      });
      const registry = () => createRegistry([sshAuthModule()]);
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
