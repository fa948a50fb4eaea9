import type { Diagnostic } from '@brine/core';
import { masterErrors } from './errors.js';
import type { TreeSnapshot } from './file-roots.js';

/** Matchers that read only the minion id, which the minion proved with its key. */
const SAFE_MATCH = new Set(['glob', 'pcre', 'list']);
/** Compound prefixes that read only the id: L@ (list) and E@ (pcre). */
const UNSAFE_COMPOUND = /(?:^|[\s'"(])([GPIJSRN])@/;
/** A template in the top file deciding on what the minion asserts. */
const ASSERTED_IN_TEMPLATE = /\{[{%].*\b(grains|pillar|salt|opts)\b/;

/**
 * With `pillar_safe_matchers_only`, the pillar top files may target minions by id only: grains,
 * pillar, IP and nodegroup matching (a `match:` other than glob/pcre/list, a compound with G@,
 * P@, I@, J@, S@, R@ or N@, or a template reading grains/pillar) is refused, each at its line.
 * Grains are what the minion says it is, so any of those lets a minion obtain another's secrets.
 */
export function unsafePillarMatchers(snap: TreeSnapshot): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const env of snap.tree.envs()) {
    const text = snap.tree.read(env, 'top.sls');
    if (text === undefined) continue;
    const file = snap.lookup(env, 'top.sls')?.abs ?? `${env}:top.sls`;
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.replace(/^\s*#.*$/, '');
      let what: string | undefined;
      const match = /\bmatch\s*:\s*['"]?([A-Za-z_]+)/.exec(line);
      if (match && !SAFE_MATCH.has(match[1]!)) what = `match: ${match[1]}`;
      else if (!match && UNSAFE_COMPOUND.test(line)) what = `${UNSAFE_COMPOUND.exec(line)![1]}@ in a compound target`;
      else if (ASSERTED_IN_TEMPLATE.test(line)) what = `a template reading ${ASSERTED_IN_TEMPLATE.exec(line)![1]}`;
      if (what === undefined) return;
      out.push(masterErrors.diag('BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER', { file, line: i + 1, what }, { file, line: i + 1, env }));
    });
  }
  return out;
}
