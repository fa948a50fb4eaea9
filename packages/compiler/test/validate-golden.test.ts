import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { dirTree, validateSls } from '../src/index.js';

/**
 * Golden cases for `brine validate`, one folder a case:
 *   tree/ (base env), case.json ({sls, env?, seedFields?, note}),
 *   expected.json: the report exactly as `brine validate --out json` prints it (compared as text),
 *   diagnostics.json: the compiler's diagnostics as `file:line:column severity CODE` (when any),
 *   seed.json: the seed's own output text, for the seed's examples; the fields named in
 *   seedFields (dotted paths) are compared byte for byte with it.
 * BRINE_UPDATE_GOLDEN=1 rewrites expected.json and diagnostics.json (review the diff).
 */
const GOLDEN = fileURLToPath(new URL('./golden/validate/', import.meta.url));

interface CaseSpec {
  sls: string[];
  env?: string;
  seedFields?: string[];
  grains?: Record<string, unknown>;
}

function pick(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const k of path.split('.')) cur = (cur as Record<string, unknown> | undefined)?.[k];
  return cur;
}

let cases = 0;
for (const name of readdirSync(GOLDEN).sort()) {
  const dir = join(GOLDEN, name);
  if (!statSync(dir).isDirectory()) continue;
  cases++;
  t.test(name, async (t) => {
    const spec: CaseSpec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
    const res = validateSls(
      { tree: dirTree({ base: [join(dir, 'tree')] }), minion: { id: 'minion1', grains: { id: 'minion1', ...spec.grains } } },
      spec.sls,
      spec.env,
    );
    const text = JSON.stringify(res.report, null, 4) + '\n';
    const diags = res.diagnostics.map((d) => `${d.file ?? ''}:${d.line ?? ''}:${d.column ?? ''} ${d.severity} ${d.code}`);
    const file = join(dir, 'expected.json');
    const dfile = join(dir, 'diagnostics.json');
    if (process.env.BRINE_UPDATE_GOLDEN === '1') {
      writeFileSync(file, text);
      if (diags.length > 0) writeFileSync(dfile, JSON.stringify(diags, null, 2) + '\n');
      t.comment(`wrote ${file}`);
    } else if (!existsSync(file)) {
      t.fail(`${file} is missing: a golden test never writes its own expectation. Run it with BRINE_UPDATE_GOLDEN=1 to write one, then review it`);
      return;
    }
    t.equal(text, readFileSync(file, 'utf8'), 'report as printed');
    t.same(diags, existsSync(dfile) ? JSON.parse(readFileSync(dfile, 'utf8')) : [], 'diagnostics');
    if (spec.seedFields) {
      const seedText = readFileSync(join(dir, 'seed.json'), 'utf8');
      const seed = JSON.parse(seedText);
      for (const f of spec.seedFields) {
        t.equal(JSON.stringify(pick(res.report, f), null, 4), JSON.stringify(pick(seed, f), null, 4), `${f} byte for byte as in the seed`);
      }
      // Where every field the seed shows is compared, the document itself is the seed's text.
      const shown = Object.keys(seed);
      if (shown.every((k) => spec.seedFields!.includes(k))) {
        const mine: Record<string, unknown> = {};
        for (const k of shown) mine[k] = (res.report as unknown as Record<string, unknown>)[k];
        t.equal(JSON.stringify(mine, null, 4) + '\n', seedText, 'the seed document, byte for byte');
      }
    }
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 10, `at least 10 validate golden cases (found ${cases})`);
