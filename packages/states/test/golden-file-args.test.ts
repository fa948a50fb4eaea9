import t from 'tap';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { createRegistry, fileModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * The file states' arguments against Salt 3007's own results (golden/file-args, regenerate.sh):
 * keywords a function does not take are ignored as Salt's **kwargs ignores them, and the
 * arguments Salt has that Brine lacked (contents_pillar, contents_grains, file.prepend, an
 * exclude_pat list). A case's pillar/data.sls is JSON (valid YAML), read here without a
 * renderer; the grains are Salt's minion id, `anchor`. Where Salt's apply left files behind
 * (salt-tree.json), Brine's apply must leave the same paths with the same modes and text.
 */

function snapshot(root: string): Record<string, { mode: string; type?: string; text?: string }> {
  const out: Record<string, { mode: string; type?: string; text?: string }> = {};
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
      if (st.isDirectory()) {
        out[relative(root, p)] = { mode, type: 'dir' };
        walk(p);
      } else if (st.isFile()) out[relative(root, p)] = { mode, text: readFileSync(p, 'utf8') };
    }
  };
  walk(root);
  return out;
}

/** Salt walks file.recurse's files from Python sets: its test-mode comment sections come in any order. */
function orderFree(v: { result: unknown; comment: unknown; changes: Record<string, unknown> }) {
  const comment = String(v.comment);
  return {
    ...v,
    comment: comment.includes('#### ')
      ? comment
          .split(/\n*#### /)
          .filter(Boolean)
          .map((s) => s.trim())
          .sort()
      : comment,
  };
}

const registry = createRegistry([fileModule()]);
for (const caseDir of goldenCases('file-args')) {
  const data = join(caseDir, 'pillar', 'data.sls');
  const pillar = existsSync(data) ? (JSON.parse(readFileSync(data, 'utf8')) as Record<string, unknown>) : {};
  for (const mode of ['run', 'test'] as const) {
    t.test(`file-args/${basename(caseDir)} ${mode}`, async (t) => {
      const capture = join(caseDir, 'salt-tree.json');
      const after =
        mode === 'run' && existsSync(capture)
          ? (root: string) => t.same(snapshot(root), JSON.parse(readFileSync(capture, 'utf8')), 'files left as Salt left them')
          : undefined;
      const opts = { registry: () => registry, templateContext: { pillar, grains: { id: 'anchor' } }, after };
      for (const r of await runGoldenCase(caseDir, mode, opts)) t.same(orderFree(r.got), orderFree(r.want), r.tag);
    });
  }
}
