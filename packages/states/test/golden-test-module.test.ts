import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, testModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * The test states against Salt's results. A case's pillar/data.sls is JSON (valid YAML), so
 * the pillar Salt rendered is read here without a renderer.
 */

for (const caseDir of goldenCases('test')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`test/${basename(caseDir)} ${mode}`, async (t) => {
      const data = join(caseDir, 'pillar', 'data.sls');
      const pillar = existsSync(data) ? (JSON.parse(readFileSync(data, 'utf8')) as Record<string, unknown>) : {};
      const registry = () => createRegistry([testModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry, templateContext: { pillar } }))
        t.same(r.got, r.want, r.why ? `${r.tag} (${r.why})` : r.tag);
    });
  }
}
