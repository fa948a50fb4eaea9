import t from 'tap';
import { basename } from 'node:path';
import { createRegistry, fileModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * The file states of issue 10 (recurse, serialize, line, comment, uncomment, blockreplace,
 * accumulated, copy, rename, touch, exists, missing) against Salt 3007's own results for the
 * cases in golden/file (regenerate.sh). salt:// is the case's tree, as it was Salt's file root.
 * Salt walks file.recurse's files and its clean list from Python sets, so the order of the
 * sections of its test-mode comment and of `removed` varies between runs: both are compared
 * sorted.
 */

function orderFree(v: { result: unknown; comment: unknown; changes: Record<string, unknown> }) {
  const comment = String(v.comment);
  const sections = comment.includes('#### ')
    ? comment
        .split(/\n*#### /)
        .filter(Boolean)
        .map((s) => (s.startsWith('removed ####') ? ['removed ####', ...s.split('\n').slice(1).sort()].join('\n') : s.trim()))
        .sort()
    : comment;
  const changes = { ...v.changes };
  if (Array.isArray(changes.removed)) changes.removed = [...(changes.removed as string[])].sort();
  return { result: v.result, comment: sections, changes };
}

const registry = createRegistry([fileModule()]);
for (const caseDir of goldenCases('file')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`file/${basename(caseDir)} ${mode}`, async (t) => {
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry })) t.same(orderFree(r.got), orderFree(r.want), r.tag);
    });
  }
}
