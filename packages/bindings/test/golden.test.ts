import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { dirBindingsSource, formatExplain, resolveBindings, type CategorySpec, type Layer } from '../src/index.js';

/**
 * Golden cases for structured bindings, one folder a case:
 *   site/, modules/ (and site-2/, modules-2/ ... for more roots of a layer): bindings roots;
 *   case.json: {minion: {id, grains, environment}, categories?, explainText?: [names]};
 *   expected.json: {pillar, explain, diagnostics}; expected-explain.txt when explainText is set.
 * BRINE_UPDATE_GOLDEN=1 rewrites the expected files (review the diff before committing).
 */
const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));

interface CaseSpec {
  minion?: { id?: string; grains?: Record<string, unknown>; environment?: string };
  categories?: CategorySpec[];
  explainText?: string[];
}

function layers(dir: string): Record<Layer, string[]> {
  const out: Record<Layer, string[]> = { site: [], modules: [] };
  for (const name of readdirSync(dir).sort()) {
    const m = /^(site|modules)(?:-\d+)?$/.exec(name);
    if (m && statSync(join(dir, name)).isDirectory()) out[m[1] as Layer].push(join(dir, name));
  }
  return out;
}

function check(t: Test, file: string, actual: string): void {
  if (process.env.BRINE_UPDATE_GOLDEN === '1') {
    writeFileSync(file, actual);
    t.comment(`wrote ${file}`);
  } else if (!existsSync(file)) {
    t.fail(`${file} is missing: a golden test never writes its own expectation. Run it with BRINE_UPDATE_GOLDEN=1 to write one, then review it`);
    return;
  }
  t.equal(actual, readFileSync(file, 'utf8'), file);
}

let cases = 0;
for (const name of readdirSync(GOLDEN).sort()) {
  const dir = join(GOLDEN, name);
  if (!statSync(dir).isDirectory()) continue;
  cases++;
  t.test(name, async (t) => {
    const spec: CaseSpec = existsSync(join(dir, 'case.json')) ? JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) : {};
    const id = spec.minion?.id ?? 'minion1';
    const r = resolveBindings({
      files: dirBindingsSource(layers(dir)),
      categories: spec.categories,
      minion: { id, grains: { id, ...(spec.minion?.grains ?? {}) }, environment: spec.minion?.environment },
    });
    // Roots are absolute paths: the golden files name them relative to the case.
    for (const e of Object.values(r.value.explain)) {
      for (const ref of [e.winner, ...e.shadowed, ...(e.multibind?.contributions ?? [])]) ref.root = relative(dir, ref.root);
    }
    const diagnostics = r.diagnostics.map((d) => ({ ...d, message: d.message.split(`${dir}/`).join('') }));
    const actual = { pillar: r.value.pillar, explain: r.value.explain, diagnostics };
    check(t, join(dir, 'expected.json'), JSON.stringify(actual, null, 2) + '\n');
    if (spec.explainText) {
      check(t, join(dir, 'expected-explain.txt'), spec.explainText.map((n) => formatExplain(r.value.explain, n)).join('\n'));
    }
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 37, `at least 37 golden bindings cases (found ${cases})`);
