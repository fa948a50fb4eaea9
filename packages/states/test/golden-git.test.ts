import t from 'tap';
import { basename } from 'node:path';
import { defaultRegistry } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/** git.latest, git.config_set and git.config_unset against Salt's results on local repositories. */
const registry = defaultRegistry();
for (const module of ['git']) {
  for (const caseDir of goldenCases(module)) {
    for (const mode of ['run', 'test'] as const) {
      t.test(`${module}/${basename(caseDir)} ${mode}`, async (t) => {
        for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry })) t.same(r.got, r.want, r.why ? `${r.tag} (${r.why})` : r.tag);
      });
    }
  }
}
