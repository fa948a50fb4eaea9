import { copyKeyOrder, keysOf, setKey, type Pillar } from '@brine/core';
import { deepMerge } from '../pillar.js';

/** Salt's `pillar_source_merging_strategy` values Brine takes (`smart` is `recurse` with the yaml renderer). */
export const MERGE_STRATEGIES = ['smart', 'recurse', 'aggregate', 'overwrite', 'none'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

function copied(d: Record<string, unknown>): Record<string, unknown> {
  const out = { ...d };
  copyKeyOrder(d, out);
  return out;
}

/**
 * Merges source `b` over `a` as Salt's `salt.utils.dictupdate.merge` does for pillar sources;
 * `a` is left as it was.
 */
export function mergeSources(a: Pillar, b: Pillar, strategy: MergeStrategy, mergeLists: boolean): Pillar {
  switch (strategy) {
    case 'smart':
    case 'recurse':
      return deepMerge(copied(a), b, mergeLists);
    case 'none':
      return deepMerge(copied(a), b, false);
    // aggregate is yamlex's level-1 merge: without `!aggregate` tags in the data (YAML and JSON
    // sources carry none) it keeps b's value whole below the top level, as overwrite does
    case 'aggregate':
    case 'overwrite': {
      // b's top-level keys replace a's whole values
      const out = copied(a);
      for (const k of keysOf(b)) setKey(out, k, b[k]);
      return out;
    }
  }
}
