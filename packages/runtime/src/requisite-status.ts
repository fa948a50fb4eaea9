import {
  chunkRequisites,
  EVAL_REQUISITES,
  formatRequisiteRef,
  parseArgBindEntryValue,
  type ChunkIndex,
  type EvalRequisite,
  type LowChunk,
  type RequisiteTarget,
  type StateResult,
} from '@brine/core';

export type EvalKind = EvalRequisite;

export interface ResolvedRequisite {
  kind: EvalKind;
  ref: unknown;
  chunks: LowChunk[];
}

export interface RequisiteLookup {
  reqs: ResolvedRequisite[];
  /** References that match no chunk, by kind, formatted as Salt prints them. */
  lost: Map<string, string[]>;
  /**
   * `listen` references (module: id) that match no chunk. They do not stop the state: as in
   * Salt, each becomes a Listen_Error entry at the end of the run.
   */
  listenLost: RequisiteTarget[];
}

/** Finds the chunks each requisite of a chunk names. In a prereq dry run `prerequired` is ignored. */
export function lookupRequisites(index: ChunkIndex, chunk: LowChunk, dryRun: boolean): RequisiteLookup {
  const reqs: ResolvedRequisite[] = [];
  const lost = new Map<string, string[]>();
  const listenLost: RequisiteTarget[] = [];
  for (const { key: kind, ref, target } of chunkRequisites(chunk, EVAL_REQUISITES, true)) {
    if (kind === 'prerequired' && dryRun) continue;
    let chunks: LowChunk[] = [];
    if (target && kind === 'arg_bind') {
      const { id, resource } = parseArgBindEntryValue(target.value);
      chunks = index.resolveArgBind(target.kind, id, resource);
    } else if (target) chunks = index.resolve(target);
    if (chunks.length === 0) {
      // A bare ID that names nothing is not an error for listen (Salt skips it quietly).
      if (kind === 'listen') {
        if (target && target.kind !== 'id') listenLost.push(target);
        continue;
      }
      const shown = target ? formatRequisiteRef(target) : JSON.stringify(ref);
      const l = lost.get(kind);
      if (l) l.push(shown);
      else lost.set(kind, [shown]);
      continue;
    }
    reqs.push({ kind, ref, chunks: chunks.filter((c) => c !== chunk) });
  }
  return { reqs, lost, listenLost };
}

/** Salt's comment for references that match nothing. */
export function notFoundComment(lost: Map<string, string[]>): string {
  let out = 'The following requisites were not found:\n';
  for (const [kind, refs] of lost) {
    out += `${' '.repeat(19)}${kind}:\n`;
    for (const r of refs) out += `${' '.repeat(23)}${r}\n`;
  }
  return out;
}

export type RequisiteStatus =
  | { status: 'met' }
  | { status: 'change' }
  | { status: 'fail'; failed: LowChunk[] }
  | { status: 'pre' }
  | { status: 'onfail' }
  | { status: 'onchanges' };

const hasChanges = (r: StateResult) => r.changes !== null && typeof r.changes === 'object' && Object.keys(r.changes).length > 0;

type Stat = 'fail' | 'met' | 'change' | 'pre' | 'premet' | 'onfail' | 'onchanges' | 'onchangesmet';

/** What one kind of requisite says about its targets, Salt's way (state.py check_requisite). */
function kindStats(kind: EvalKind, targets: StateResult[]): Set<Stat> {
  const stats = new Set<Stat>();
  const onfail = kind.startsWith('onfail');
  for (const r of targets) {
    // An onfail target that succeeded keeps the state from running; one that failed, or that
    // would change something in test mode (result None), lets it run.
    if (onfail) {
      if (r.result === true) {
        stats.add('onfail');
        continue;
      }
    } else if (r.result === false) {
      stats.add('fail');
      continue;
    }
    if (kind.startsWith('onchanges')) {
      stats.add(hasChanges(r) ? 'onchangesmet' : 'onchanges');
      continue;
    }
    if (kind.startsWith('watch') && hasChanges(r)) {
      stats.add('change');
      continue;
    }
    if (kind === 'prereq') {
      if (r.result === null) stats.add('premet');
      else {
        stats.add('pre');
        continue;
      }
    }
    if (r.__state_ran__ !== false) stats.add('met');
  }
  // One good target is enough for the _any kinds and for plain onfail.
  if (kind.endsWith('_any') || kind === 'onfail') {
    if (stats.has('met') || stats.has('change')) stats.delete('fail');
    if (stats.has('onchangesmet')) {
      stats.delete('onchanges');
      stats.delete('fail');
    }
    if (stats.has('onfail') && stats.has('met')) stats.delete('onfail');
  }
  // onfail_all: one target that succeeded keeps the state from running.
  if (kind.endsWith('_all') && stats.has('onfail')) stats.delete('met');
  return stats;
}

/**
 * Decides what to do with a chunk once its requisites have results. `result(kind, chunk)` reads
 * a target's result (the dry-run result for prereq targets); a target without one is ignored.
 * Each kind is judged on its own, then the verdicts combine with Salt's precedence: a failed
 * requisite, then prereq, onfail, onchanges, watch.
 */
export function requisiteStatus(
  reqs: ResolvedRequisite[],
  result: (kind: EvalKind, chunk: LowChunk) => StateResult | undefined,
): RequisiteStatus {
  const byKind = new Map<EvalKind, StateResult[]>();
  const failed: LowChunk[] = [];
  for (const req of reqs) {
    if (req.kind === 'listen') continue;
    let targets = byKind.get(req.kind);
    if (!targets) byKind.set(req.kind, (targets = []));
    for (const c of req.chunks) {
      const r = result(req.kind, c);
      if (!r) continue;
      targets.push(r);
      if (r.result === false && !failed.includes(c)) failed.push(c);
    }
  }
  const all = new Set<Stat>();
  for (const [kind, targets] of byKind) for (const s of kindStats(kind, targets)) all.add(s);

  if (all.has('fail')) return { status: 'fail', failed };
  if (all.has('pre') && !all.has('premet')) return { status: 'pre' };
  if (all.has('onfail') && !all.has('onchangesmet')) return { status: 'onfail' };
  if (all.has('onchanges') && !all.has('onchangesmet')) return { status: 'onchanges' };
  if (all.has('change')) return { status: 'change' };
  if (all.has('onfail')) return { status: 'onfail' };
  return { status: 'met' };
}

/** "One or more requisite failed: main.broken, main.other" in declaration order. */
export function failedComment(failed: LowChunk[]): string {
  const names: string[] = [];
  for (const c of failed) {
    const n = `${c.__sls__}.${c.__id__}`;
    if (!names.includes(n)) names.push(n);
  }
  return `One or more requisite failed: ${names.join(', ')}`;
}
