import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { compileHighstate, compilePillar, dirTree, renderSls } from '../src/index.js';

/**
 * Cases whose expectation is real Salt's: each folder holds tree/ (the state tree), maybe
 * pillar/ (the pillar roots), grains.json and salt-low.json, both recorded by the Salt oracle
 * with scripts/salt-golden.sh (never written from Brine's output). The minion is `anchor`.
 * A salt-low.json that is a list of strings is Salt's compile failure: Brine must fail too.
 */
const GOLDEN = fileURLToPath(new URL('./golden/salt/', import.meta.url));

let cases = 0;
for (const name of readdirSync(GOLDEN).sort()) {
  const dir = join(GOLDEN, name);
  if (!statSync(dir).isDirectory()) continue;
  // gpg cases need the master to decrypt: packages/master/test/gpg-pillar.test.ts runs them
  if (existsSync(join(dir, 'gpg-secret.asc'))) continue;
  cases++;
  t.test(name, async (t) => {
    const grains = { id: 'anchor', ...(JSON.parse(readFileSync(join(dir, 'grains.json'), 'utf8')) as Record<string, unknown>) };
    const minion = { id: 'anchor', grains };
    const pillarDir = join(dir, 'pillar');
    const pillar = existsSync(pillarDir) ? compilePillar(dirTree({ base: [pillarDir] }), minion) : { pillar: {}, diagnostics: [] };
    t.same(
      pillar.diagnostics.filter((d) => d.severity === 'error'),
      [],
      'pillar renders',
    );
    const compiled = compileHighstate({ tree: dirTree({ base: [join(dir, 'tree')] }), minion, pillar: pillar.pillar, render: renderSls });
    const salt = JSON.parse(readFileSync(join(dir, 'salt-low.json'), 'utf8')) as unknown[];
    if (salt.every((x) => typeof x === 'string')) {
      t.ok(compiled.failed, `Salt refuses this case: ${salt.join('; ')}`);
      return;
    }
    t.same(
      compiled.diagnostics.filter((d) => d.severity === 'error'),
      [],
      'no errors',
    );
    t.same(compiled.low, salt, 'the low state Salt prints');
    t.same(
      compiled.low.map((c) => Object.keys(c)),
      salt.map((c) => Object.keys(c as object)),
      'keys in Salt’s order',
    );
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 11, `at least 11 Salt golden cases (found ${cases})`);
