import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { compileHighstate, compileSls, compileTopFiles, dirTree, type CompileOptions } from '../src/index.js';
import { goldenRender } from './support/golden-render.js';

/**
 * Golden cases for the compiler stages, one folder a case:
 *   tree/ (base env) and tree-<env>/ (other envs), case.json (minion, function, options),
 *   expected.json: the low state / matches / high data, or {errors, warnings} to match.
 * BRINE_UPDATE_GOLDEN=1 rewrites expected.json (review the diff before committing).
 */
const GOLDEN = fileURLToPath(new URL('./golden/compile/', import.meta.url));

interface CaseSpec {
  minion?: { id?: string; grains?: Record<string, unknown> };
  pillar?: Record<string, unknown>;
  function?: 'lowstate' | 'highstate' | 'top' | 'low_sls' | 'sls';
  sls?: string[];
  env?: string;
  options?: Partial<CompileOptions>;
}

function roots(dir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of readdirSync(dir)) {
    const m = /^tree(?:-(.+))?$/.exec(name);
    if (m && statSync(join(dir, name)).isDirectory()) out[m[1] ?? 'base'] = [join(dir, name)];
  }
  return out;
}

let cases = 0;
for (const name of readdirSync(GOLDEN).sort()) {
  const dir = join(GOLDEN, name);
  if (!statSync(dir).isDirectory()) continue;
  cases++;
  t.test(name, async (t) => {
    const spec: CaseSpec = existsSync(join(dir, 'case.json')) ? JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) : {};
    const opts: CompileOptions = {
      tree: dirTree(roots(dir)),
      minion: { id: spec.minion?.id ?? 'minion1', grains: { id: spec.minion?.id ?? 'minion1', ...(spec.minion?.grains ?? {}) } },
      pillar: spec.pillar ?? {},
      render: goldenRender,
      ...(spec.options ?? {}),
    };
    const fn = spec.function ?? 'lowstate';
    let actual: unknown;
    if (fn === 'top') {
      const top = compileTopFiles(opts);
      const errors = top.diagnostics.filter((d) => d.severity === 'error');
      actual = errors.length ? { errors } : top.matches;
    } else {
      const c = fn === 'low_sls' || fn === 'sls' ? compileSls(opts, spec.sls ?? [], spec.env ?? 'base', fn === 'low_sls') : compileHighstate(opts);
      const warnings = c.diagnostics.filter((d) => d.severity === 'warning');
      if (c.failed) actual = { errors: c.diagnostics.filter((d) => d.severity === 'error'), warnings };
      else {
        actual = fn === 'highstate' || fn === 'sls' ? c.rawHigh : c.low;
        if (warnings.length) actual = { result: actual, warnings };
      }
    }
    const file = join(dir, 'expected.json');
    if (process.env.BRINE_UPDATE_GOLDEN === '1') {
      writeFileSync(file, JSON.stringify(actual, null, 2) + '\n');
      t.comment(`wrote ${file}`);
    } else if (!existsSync(file)) {
      t.fail(`${file} is missing: a golden test never writes its own expectation. Run it with BRINE_UPDATE_GOLDEN=1 to write one, then review it`);
      return;
    }
    t.same(actual, JSON.parse(readFileSync(file, 'utf8')));
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 23, `at least 23 compile golden cases (found ${cases})`);
