import t from 'tap';
import { basename } from 'node:path';
import { defaultRegistry } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/** archive.extracted against Salt's results: local and salt:// tarballs and a zip, in temp roots. */
const registry = defaultRegistry();
for (const caseDir of goldenCases('archive')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`archive/${basename(caseDir)} ${mode}`, async (t) => {
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry })) t.same(r.got, r.want, r.why ? `${r.tag} (${r.why})` : r.tag);
    });
  }
}
