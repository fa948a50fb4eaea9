import t from 'tap';
import { basename } from 'node:path';
import { cmdModule, createRegistry, pipModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * pip.installed/removed against Salt's results: a virtualenv made by the case and hand-built
 * wheels in a local dir (no index, no network). Salt ran without the host's pip configuration
 * (the case's `wrap`); so does this test.
 */
delete process.env.PIP_FIND_LINKS;
process.env.PIP_CONFIG_FILE = '/dev/null';

const registry = createRegistry([pipModule(), cmdModule()]);
for (const caseDir of goldenCases('pip')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`pip/${basename(caseDir)} ${mode}`, async (t) => {
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry })) t.same(r.got, r.want, r.why ? `${r.tag} (${r.why})` : r.tag);
    });
  }
}
