import {
  chunkRequisites,
  EVAL_REQUISITES,
  formatRequisiteRef,
  parseArgBindEntryValue,
  type ChunkIndex,
  type EvalRequisite,
  type LowChunk,
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
}

/** Finds the chunks each requisite of a chunk names. In a prereq dry run `prerequired` is ignored. */
export function lookupRequisites(index: ChunkIndex, chunk: LowChunk, dryRun: boolean): RequisiteLookup {
  const reqs: ResolvedRequisite[] = [];
  const lost = new Map<string, string[]>();
  for (const { key: kind, ref, target } of chunkRequisites(chunk, EVAL_REQUISITES, true)) {
    if (kind === 'prerequired' && dryRun) continue;
    let chunks: LowChunk[] = [];
    if (target && kind === 'arg_bind') {
      const { id, resource } = parseArgBindEntryValue(target.value);
      chunks = index.resolveArgBind(target.kind, id, resource);
    } else if (target) chunks = index.resolve(target);
    if (chunks.length === 0) {
      const shown = target ? formatRequisiteRef(target) : JSON.stringify(ref);
      const l = lost.get(kind);
      if (l) l.push(shown);
      else lost.set(kind, [shown]);
      continue;
    }
    reqs.push({ kind, ref, chunks: chunks.filter((c) => c !== chunk) });
  }
  return { reqs, lost };
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

/**
 * Decides what to do with a chunk once its requisites have results. `result(kind, chunk)` reads
 * a target's result (the dry-run result for prereq targets); a target without one is ignored.
 * Precedence as Salt: a failed requisite, then prereq, onfail, onchanges, then watch.
 */
export function requisiteStatus(
  reqs: ResolvedRequisite[],
  result: (kind: EvalKind, chunk: LowChunk) => StateResult | undefined,
): RequisiteStatus {
  const failed: LowChunk[] = [];
  const addFailed = (c: LowChunk) => {
    if (!failed.includes(c)) failed.push(c);
  };
  const anyGroups = new Map<string, Array<[LowChunk, StateResult]>>();
  let hasOnfail = false;
  let onfailFired = false;
  const onfailAll: StateResult[] = [];
  let hasOnchanges = false;
  let onchangesFired = false;
  let changed = false;
  let prereqs = 0;
  let prereqWouldChange = false;

  for (const req of reqs) {
    if (req.kind === 'listen') continue;
    for (const c of req.chunks) {
      const r = result(req.kind, c);
      if (!r) continue;
      switch (req.kind) {
        case 'require':
        case 'prerequired':
        case 'arg_bind':
          if (r.result === false) addFailed(c);
          break;
        case 'watch':
          if (r.result === false) addFailed(c);
          else if (hasChanges(r)) changed = true;
          break;
        case 'onchanges':
          hasOnchanges = true;
          if (r.result === false) addFailed(c);
          else if (hasChanges(r)) onchangesFired = true;
          break;
        case 'require_any':
        case 'watch_any':
        case 'onchanges_any': {
          const g = anyGroups.get(req.kind) ?? [];
          g.push([c, r]);
          anyGroups.set(req.kind, g);
          if (req.kind === 'onchanges_any') {
            hasOnchanges = true;
            if (r.result !== false && hasChanges(r)) onchangesFired = true;
          }
          if (req.kind === 'watch_any' && r.result !== false && hasChanges(r)) changed = true;
          break;
        }
        case 'onfail':
        case 'onfail_any':
          hasOnfail = true;
          if (r.result === false) onfailFired = true;
          break;
        case 'onfail_all':
          hasOnfail = true;
          onfailAll.push(r);
          break;
        case 'prereq':
          prereqs++;
          if (r.result === false) addFailed(c);
          else if (r.result === null) prereqWouldChange = true;
          break;
      }
    }
  }
  for (const group of anyGroups.values()) {
    if (group.length > 0 && group.every(([, r]) => r.result === false)) group.forEach(([c]) => addFailed(c));
  }
  if (onfailAll.length > 0 && onfailAll.every((r) => r.result === false)) onfailFired = true;

  if (failed.length > 0) return { status: 'fail', failed };
  if (prereqs > 0 && !prereqWouldChange) return { status: 'pre' };
  if (hasOnfail && !onfailFired) return { status: 'onfail' };
  if (hasOnchanges && !onchangesFired) return { status: 'onchanges' };
  if (changed) return { status: 'change' };
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
