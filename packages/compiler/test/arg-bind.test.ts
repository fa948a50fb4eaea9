import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { HighData } from '@brine/core';
import { argBind } from '../src/arg-bind.js';

/**
 * Golden cases for the arg_bind stage, one folder a case: input.json (refined high data) and
 * expected.json ({high, diagnostics}). BRINE_UPDATE_GOLDEN=1 rewrites expected.json (review the
 * diff before committing).
 */
const GOLDEN = fileURLToPath(new URL('./golden/arg-bind/', import.meta.url));

let cases = 0;
for (const name of readdirSync(GOLDEN).sort()) {
  const dir = join(GOLDEN, name);
  if (!statSync(dir).isDirectory()) continue;
  cases++;
  t.test(name, async (t) => {
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8')) as HighData;
    const frozen = JSON.stringify(input);
    const result = argBind(input);
    t.equal(JSON.stringify(input), frozen, 'the input is not changed (pure stage)');
    const actual = { high: result.value, diagnostics: result.diagnostics };
    const file = join(dir, 'expected.json');
    if (process.env.BRINE_UPDATE_GOLDEN === '1') {
      writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
    } else if (!existsSync(file)) {
      t.fail(`${file} is missing: a golden test never writes its own expectation. Run it with BRINE_UPDATE_GOLDEN=1 to write one, then review it`);
      return;
    }
    t.same(actual, JSON.parse(readFileSync(file, 'utf8')));
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 7, `at least 7 arg_bind golden cases (found ${cases})`);
