import {
  compilePillar as compileClassicPillar,
  mergePillar,
  renderSls,
  type HostAnswers,
  type PillarMergeStrategy,
  type PillarResult,
  type RenderInput,
  type RenderOutput,
} from '@brine/compiler';
import type { Grains } from '@brine/core';
import type { TreeSnapshot } from './file-roots.js';
import { checkPillarTop } from './pillar-top-guard.js';

export type { PillarResult };

/** Salt's pillar merge (see the compiler's mergePillar, which `brine local` shares). */
export const deepMerge = mergePillar;

/** Classic pillar for one minion from the master's pillar roots (the compiler's compilePillar). */
export function compilePillar(
  snap: TreeSnapshot,
  minion: { id: string; grains: Grains },
  opts: {
    mergeLists?: boolean;
    strategy?: PillarMergeStrategy;
    seen?: Record<string, unknown>;
    nodegroups?: Record<string, string | string[]>;
    safeMatchersOnly?: boolean;
    render?: (input: RenderInput) => RenderOutput;
    /** The mine.get answers known so far (the master's mine answers pillar templates' calls). */
    context?: { hostAnswers?: HostAnswers };
  } = {},
): PillarResult {
  if (!opts.safeMatchersOnly) return compileClassicPillar(snap.tree, minion, opts);
  // no pillar at all rather than one chosen by what the minion claims
  const checked = checkPillarTop(snap, opts.nodegroups);
  if (checked.diagnostics.length > 0) return { pillar: {}, diagnostics: checked.diagnostics };
  // the top files are the ones checked, rendered without the minion's data; its SLS files render as ever
  const sls = opts.render ?? renderSls;
  const render = (input: RenderInput) => (input.sls === undefined ? (checked.tops.get(input.env) ?? noTop(input)) : sls(input));
  return compileClassicPillar(snap.tree, minion, { ...opts, render });
}

function noTop(input: RenderInput) {
  return { high: {}, positions: { file: input.path, ids: {} }, diagnostics: [] };
}
