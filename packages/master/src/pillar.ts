import { compileTopFiles, readSls, renderSls } from '@brine/compiler';
import { isDict, type Diagnostic, type Grains, type Pillar } from '@brine/core';
import { masterErrors } from './errors.js';
import type { TreeSnapshot } from './file-roots.js';

/**
 * Salt's pillar merge: dictionaries merge key by key, recursively; anything else (lists too,
 * unless `mergeLists`) is replaced by the later value.
 */
export function deepMerge(dest: Record<string, unknown>, src: Record<string, unknown>, mergeLists = false): Record<string, unknown> {
  for (const [k, v] of Object.entries(src)) {
    const cur = dest[k];
    if (isDict(cur) && isDict(v)) dest[k] = deepMerge({ ...cur }, v, mergeLists);
    else if (mergeLists && Array.isArray(cur) && Array.isArray(v)) dest[k] = [...cur, ...v];
    else dest[k] = isDict(v) ? deepMerge({}, v, mergeLists) : v;
  }
  return dest;
}

export interface PillarResult {
  pillar: Pillar;
  diagnostics: Diagnostic[];
}

/**
 * Classic pillar for one minion, rendered on the master: the pillar top file picks SLS files per
 * environment, each is rendered (Jinja then YAML) with the minion's grains and the pillar so far,
 * `include:` lists are followed, and the results are merged in order.
 */
export function compilePillar(
  snap: TreeSnapshot,
  minion: { id: string; grains: Grains },
  opts: { mergeLists?: boolean; nodegroups?: Record<string, string | string[]> } = {},
): PillarResult {
  const diagnostics: Diagnostic[] = [];
  const pillar: Record<string, unknown> = {};
  if (snap.tree.envs().length === 0) return { pillar, diagnostics };
  const top = compileTopFiles({
    tree: snap.tree,
    minion,
    pillar: {},
    render: renderSls,
    ...(opts.nodegroups ? { nodegroups: opts.nodegroups } : {}),
  });
  diagnostics.push(...top.diagnostics);
  const done = new Set<string>();
  const renderOne = (env: string, sls: string, from?: string) => {
    const key = `${env}:${sls}`;
    if (done.has(key)) return;
    done.add(key);
    const file = readSls(snap.tree, env, sls);
    if (!file) {
      diagnostics.push(
        masterErrors.diag(
          'BRINE_ERR_MASTER_PILLAR_MISSING',
          { sls, env, from: from ? ` (included from '${from}')` : '' },
          { env, sls, file: from ? `${from.split('.').join('/')}.sls` : 'top.sls' },
        ),
      );
      return;
    }
    const out = renderSls({
      tree: snap.tree,
      env,
      sls,
      path: file.path,
      text: file.text,
      context: { grains: minion.grains, pillar, params: {}, opts: { id: minion.id } },
    });
    diagnostics.push(...out.diagnostics.map((d) => ({ ...d, message: `pillar: ${d.message}` })));
    const data = (out.high ?? {}) as Record<string, unknown>;
    const include = data.include;
    delete data.include;
    if (Array.isArray(include)) {
      for (const inc of include) {
        if (typeof inc !== 'string') continue;
        const parent = sls.split('.').slice(0, -1).join('.');
        renderOne(env, inc.startsWith('.') ? (parent ? parent + inc : inc.slice(1)) : inc, sls);
      }
    }
    deepMerge(pillar, data, opts.mergeLists);
  };
  for (const [env, list] of Object.entries(top.matches)) {
    for (const sls of list) renderOne(env, sls);
  }
  return { pillar, diagnostics };
}
