import {
  EVAL_REQUISITES,
  formatRequisiteRef,
  parseArgBindEntryValue,
  parseRequisiteRef,
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
  lost: ReadonlyMap<string, string[]>;
  /**
   * `listen` references (module: id) that match no chunk. They do not stop the state: as in
   * Salt, each becomes a Listen_Error entry at the end of the run.
   */
  listenLost: RequisiteTarget[];
}

const NO_TARGETS: RequisiteTarget[] = [];
const NO_CHUNKS: LowChunk[] = [];
/** Shared by every chunk whose references all resolve (never written to). */
const NONE_LOST: ReadonlyMap<string, string[]> = new Map();
/** The lookup of every chunk without requisites (never written to). */
const NO_REQUISITES: RequisiteLookup = { reqs: [], lost: NONE_LOST, listenLost: NO_TARGETS };
const SELF_SKIPPED: ReadonlySet<EvalKind> = new Set(['prereq', 'prerequired', 'listen', 'arg_bind']);

/** Finds the chunks each requisite of a chunk names. In a prereq dry run `prerequired` is ignored. */
export function lookupRequisites(index: ChunkIndex, chunk: LowChunk, dryRun: boolean): RequisiteLookup {
  let reqs: ResolvedRequisite[] | undefined;
  let lost: Map<string, string[]> | undefined;
  let listenLost: RequisiteTarget[] | undefined;
  // chunkRequisites(chunk, EVAL_REQUISITES, true), walked in place: no list of pairs per chunk
  for (let k = 0; k < EVAL_REQUISITES.length; k++) {
    const kind = EVAL_REQUISITES[k]!;
    const list = chunk[kind];
    if (list === undefined || list === null || (kind === 'prerequired' && dryRun)) continue;
    const many = Array.isArray(list);
    const n = many ? list.length : 1;
    for (let i = 0; i < n; i++) {
      const ref: unknown = many ? list[i] : list;
      const target = parseRequisiteRef(ref);
      let chunks: LowChunk[] = NO_CHUNKS;
      if (target && kind === 'arg_bind') {
        const { id, resource } = parseArgBindEntryValue(target.value);
        chunks = index.resolveArgBind(target.kind, id, resource);
      } else if (target) chunks = index.resolve(target);
      if (chunks.length === 0) {
        // A bare ID that names nothing is not an error for listen (Salt skips it quietly).
        if (kind === 'listen') {
          if (target && target.kind !== 'id') (listenLost ??= []).push(target);
          continue;
        }
        const shown = target ? formatRequisiteRef(target) : JSON.stringify(ref);
        lost ??= new Map();
        const l = lost.get(kind);
        if (l) l.push(shown);
        else lost.set(kind, [shown]);
        continue;
      }
      // A state that names itself (`sls:` of its own file, or of one including it) is, as in Salt,
      // a recursive requisite; only a prereq or listen on itself is left out.
      const req = { kind, ref, chunks: SELF_SKIPPED.has(kind) && chunks.includes(chunk) ? chunks.filter((c) => c !== chunk) : chunks };
      // a literal of one for the first (the usual count): push would make room for 17
      if (reqs) reqs.push(req);
      else reqs = [req];
    }
  }
  if (!reqs && !lost && !listenLost) return NO_REQUISITES;
  return { reqs: reqs ?? [], lost: lost ?? NONE_LOST, listenLost: listenLost ?? NO_TARGETS };
}

/** Salt's comment for references that match nothing. */
export function notFoundComment(lost: ReadonlyMap<string, string[]>): string {
  let out = 'The following requisites were not found:\n';
  for (const [kind, refs] of lost) {
    out += `${' '.repeat(19)}${kind}:\n`;
    for (const r of refs) out += `${' '.repeat(23)}${r}\n`;
  }
  return out;
}

export type RequisiteStatus =
  { status: 'met' } | { status: 'change' } | { status: 'fail'; failed: LowChunk[] } | { status: 'pre' } | { status: 'onfail' } | { status: 'onchanges' };

const hasChanges = (r: StateResult) => r.changes !== null && typeof r.changes === 'object' && Object.keys(r.changes).length > 0;

// What targets said, as bits (Salt's req_stats / fun_stats sets; a run has thousands of these).
const FAIL = 1;
const MET = 2;
const CHANGE = 4;
const PRE = 8;
const PREMET = 16;
const ONFAIL = 32;
const ONCHANGES = 64;
const ONCHANGESMET = 128;

const STATUS = {
  met: { status: 'met' },
  change: { status: 'change' },
  pre: { status: 'pre' },
  onfail: { status: 'onfail' },
  onchanges: { status: 'onchanges' },
} as const satisfies Record<string, RequisiteStatus>;

/** What one target says for one kind of requisite, Salt's way (state.py check_requisite). */
function targetStat(kind: EvalKind, r: StateResult): number {
  // An onfail target that succeeded keeps the state from running; one that failed, or that
  // would change something in test mode (result None), lets it run.
  if (kind === 'onfail' || kind === 'onfail_any' || kind === 'onfail_all') {
    if (r.result === true) return ONFAIL;
  } else if (r.result === false) return FAIL;
  if (kind === 'onchanges' || kind === 'onchanges_any') return hasChanges(r) ? ONCHANGESMET : ONCHANGES;
  if ((kind === 'watch' || kind === 'watch_any') && hasChanges(r)) return CHANGE;
  let bits = 0;
  if (kind === 'prereq') {
    if (r.result !== null) return PRE;
    bits = PREMET;
  }
  return r.__state_ran__ !== false ? bits | MET : bits;
}

/** One kind's verdict from its targets' bits. */
function kindStats(kind: EvalKind, stats: number): number {
  // One good target is enough for the _any kinds and for plain onfail.
  if (kind === 'onfail' || kind.endsWith('_any')) {
    if (stats & (MET | CHANGE)) stats &= ~FAIL;
    if (stats & ONCHANGESMET) stats &= ~(ONCHANGES | FAIL);
    if (stats & ONFAIL && stats & MET) stats &= ~ONFAIL;
  }
  // onfail_all: one target that succeeded keeps the state from running.
  if (kind === 'onfail_all' && stats & ONFAIL) stats &= ~MET;
  return stats;
}

/**
 * Decides what to do with a chunk once its requisites have results. `result(kind, chunk)` reads
 * a target's result (the dry-run result for prereq targets); a target without one is ignored.
 * Each kind is judged on its own (lookupRequisites lists a chunk's requisites kind by kind),
 * then the verdicts combine with Salt's precedence: a failed requisite, then prereq, onfail,
 * onchanges, watch.
 */
export function requisiteStatus(reqs: ResolvedRequisite[], result: (kind: EvalKind, chunk: LowChunk) => StateResult | undefined): RequisiteStatus {
  let failed: LowChunk[] | undefined;
  let all = 0;
  let kind: EvalKind | undefined;
  let stats = 0;
  for (let q = 0; q < reqs.length; q++) {
    const req = reqs[q]!;
    if (req.kind === 'listen') continue;
    if (req.kind !== kind) {
      if (kind !== undefined) all |= kindStats(kind, stats);
      kind = req.kind;
      stats = 0;
    }
    for (let i = 0; i < req.chunks.length; i++) {
      const c = req.chunks[i]!;
      const r = result(req.kind, c);
      if (!r) continue;
      stats |= targetStat(req.kind, r);
      if (r.result === false) {
        failed ??= [];
        if (!failed.includes(c)) failed.push(c);
      }
    }
  }
  if (kind !== undefined) all |= kindStats(kind, stats);

  if (all & FAIL) return { status: 'fail', failed: failed ?? [] };
  if (all & PRE && !(all & PREMET)) return STATUS.pre;
  if (all & ONFAIL && !(all & ONCHANGESMET)) return STATUS.onfail;
  if (all & ONCHANGES && !(all & ONCHANGESMET)) return STATUS.onchanges;
  if (all & CHANGE) return STATUS.change;
  if (all & ONFAIL) return STATUS.onfail;
  return STATUS.met;
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
