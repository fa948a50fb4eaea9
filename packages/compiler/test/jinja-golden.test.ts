/**
 * Jinja and YAML constructs as Salt 3007 renders them: each folder under golden/jinja holds a
 * `tree/` (top.sls and the SLS using the construct) and `salt-low.json`, the `local` value of
 * `salt-call-local TREE - state.show_lowstate` from the Salt oracle (a list of error strings
 * when Salt refuses the tree). Brine must give the same low state, or fail where Salt fails.
 */
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileHighstate, dirTree } from '../src/index.js';
import { renderSls } from '../src/render/index.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), 'golden', 'jinja');

let cases = 0;
for (const name of readdirSync(root).sort()) {
  const dir = join(root, name);
  if (!existsSync(join(dir, 'salt-low.json'))) continue;
  cases++;
  t.test(name, async (t) => {
    const low = JSON.parse(readFileSync(join(dir, 'salt-low.json'), 'utf8'));
    const compiled = compileHighstate({
      tree: dirTree({ base: [join(dir, 'tree')] }),
      minion: { id: 'anchor', grains: { id: 'anchor' } },
      render: renderSls,
    });
    const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
    if (Array.isArray(low) && low.every((x) => typeof x === 'string')) {
      t.ok(compiled.failed, 'compile fails, as in Salt');
      t.ok(errors.length > 0, 'with an error');
      const wanted = readWanted(dir);
      for (const w of wanted)
        t.ok(
          errors.some((d) => d.message.includes(w.message) && (w.line === undefined || d.line === w.line)),
          `error says "${w.message}"`,
        );
      return;
    }
    t.same(errors, [], 'no errors');
    t.same(compiled.low, low, 'same low state as Salt');
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 12, `at least 12 Jinja golden cases (found ${cases})`);

/** Optional `brine-error.json`: what Brine's error must say (and where) when Salt refuses. */
function readWanted(dir: string): Array<{ message: string; line?: number }> {
  const f = join(dir, 'brine-error.json');
  return existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : [];
}
