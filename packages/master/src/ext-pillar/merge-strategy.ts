import { mergePillarBy, PILLAR_MERGE_STRATEGIES, type PillarMergeStrategy } from '@brine/compiler';
import { copyKeyOrder, type Pillar } from '@brine/core';

export const MERGE_STRATEGIES = PILLAR_MERGE_STRATEGIES;
export type MergeStrategy = PillarMergeStrategy;

/** Merges source `b` over `a` as Salt merges pillar sources (see the compiler's mergePillarBy); `a` is left as it was. */
export function mergeSources(a: Pillar, b: Pillar, strategy: MergeStrategy, mergeLists: boolean): Pillar {
  const out = { ...a };
  copyKeyOrder(a, out);
  return mergePillarBy(out, b, strategy, mergeLists);
}
