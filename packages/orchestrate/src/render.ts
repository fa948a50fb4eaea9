import { compileSls, type Compiled, type StateTree } from '@brine/compiler';
import type { Pillar } from '@brine/core';

export interface RenderOrchestrationOptions {
  tree: StateTree;
  sls: string;
  saltenv?: string;
  /** The master's pillar for the orchestration, with the `pillar=` of the call merged on top. */
  pillar?: Pillar;
  /** The orchestration's minion id, `<master id>_master` as Salt names it. */
  id: string;
  grains?: Record<string, unknown>;
}

/**
 * Renders and compiles an orchestration SLS with the compiler (Jinja, YAML, includes,
 * requisites, arg_bind: all Salt's). The master does the same on a compile worker; this is for
 * callers without one (tests, tools).
 */
export function renderOrchestration(o: RenderOrchestrationOptions): Compiled {
  return compileSls(
    { tree: o.tree, minion: { id: o.id, grains: { id: o.id, ...(o.grains ?? {}) } }, pillar: o.pillar ?? {}, ...(o.saltenv ? { saltenv: o.saltenv } : {}) },
    [o.sls],
    o.saltenv ?? 'base',
  );
}
