import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, fileModule } from '../src/index.js';
import { goldenCases, orderFree, runGoldenCase, treeSnapshot } from './golden-cases.js';

/**
 * The file states' arguments against Salt 3007's own results (golden/file-args, regenerate.sh):
 * keywords a function does not take are ignored as Salt's **kwargs ignores them, and the
 * arguments Salt has that Brine lacked (contents_pillar, contents_grains, file.prepend, an
 * exclude_pat list). A case's pillar/data.sls is JSON (valid YAML), read here without a
 * renderer; the grains are Salt's minion id, `anchor`. Where Salt's apply left files behind
 * (salt-tree.json), Brine's apply must leave the same paths with the same modes and text.
 */

const registry = createRegistry([fileModule()]);
for (const caseDir of goldenCases('file-args')) {
  const data = join(caseDir, 'pillar', 'data.sls');
  const pillar = existsSync(data) ? (JSON.parse(readFileSync(data, 'utf8')) as Record<string, unknown>) : {};
  for (const mode of ['run', 'test'] as const) {
    t.test(`file-args/${basename(caseDir)} ${mode}`, async (t) => {
      const capture = join(caseDir, 'salt-tree.json');
      const after =
        mode === 'run' && existsSync(capture)
          ? (root: string) => t.same(treeSnapshot(root), JSON.parse(readFileSync(capture, 'utf8')), 'files left as Salt left them')
          : undefined;
      const opts = { registry: () => registry, templateContext: { pillar, grains: { id: 'anchor' } }, after };
      for (const r of await runGoldenCase(caseDir, mode, opts)) t.same(orderFree(r.got), orderFree(r.want), r.tag);
    });
  }
}
