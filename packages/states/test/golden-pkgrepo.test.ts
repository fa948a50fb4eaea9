import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cmdModule, createRegistry, pkgrepoModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * pkgrepo.managed/absent against Salt's results. Salt ran with the case's etc/apt (and apt's
 * lists and cache) bind-mounted over the system's; Brine works in the same tree through its
 * root option (apt-key and apt-get get an APT_CONFIG pointing there), so the host is untouched.
 */
/** A sources line with its components sorted: Salt orders them through a Python set (random per process). */
function sortComps(line: string): string {
  const [body = '', ...comment] = line.split(' #');
  const w = body.split(' ');
  const head = w[1]?.startsWith('[') ? 4 : 3;
  return [[...w.slice(0, head), ...w.slice(head).sort()].join(' '), ...comment].join(' #');
}

for (const caseDir of goldenCases('pkgrepo')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`pkgrepo/${basename(caseDir)} ${mode}`, async (t) => {
      const registry = (root: string) => createRegistry([pkgrepoModule({ root }), cmdModule()]);
      const filesJson = join(caseDir, 'salt-files.json');
      const after = (root: string) => {
        if (mode !== 'run') return;
        if (!existsSync(filesJson)) return void t.fail(`${filesJson} is missing: record the files Salt left with the Salt oracle`);
        const norm = (text: string | null) => (text === null ? null : text.split('\n').map(sortComps));
        for (const [rel, want] of Object.entries(JSON.parse(readFileSync(filesJson, 'utf8')) as Record<string, string | null>)) {
          const p = join(root, rel);
          t.same(norm(existsSync(p) ? readFileSync(p, 'utf8') : null), norm(want), `file ${rel} as Salt left it`);
        }
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, after })) t.same(r.got, r.want, r.why ? `${r.tag} (${r.why})` : r.tag);
    });
  }
}
