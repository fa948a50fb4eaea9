import { compilePillar as compileClassicPillar, mergePillar, type PillarResult } from '@brine/compiler';
import type { Grains } from '@brine/core';
import type { TreeSnapshot } from './file-roots.js';
import { unsafePillarMatchers } from './pillar-top-guard.js';

export type { PillarResult };

/** Salt's pillar merge (see the compiler's mergePillar, which `brine local` shares). */
export const deepMerge = mergePillar;

/** Classic pillar for one minion from the master's pillar roots (the compiler's compilePillar). */
export function compilePillar(
  snap: TreeSnapshot,
  minion: { id: string; grains: Grains },
  opts: { mergeLists?: boolean; nodegroups?: Record<string, string | string[]>; safeMatchersOnly?: boolean } = {},
): PillarResult {
  if (opts.safeMatchersOnly) {
    // no pillar at all rather than one chosen by what the minion claims
    const unsafe = unsafePillarMatchers(snap);
    if (unsafe.length > 0) return { pillar: {}, diagnostics: unsafe };
  }
  return compileClassicPillar(snap.tree, minion, opts);
}
