import { globToRegExp, isGlob } from './glob.js';
import type { LowChunk } from './types.js';

/**
 * How a requisite reference finds its targets. The compiler (verify, cycles) and the runtime
 * (evaluation) must agree on this, so it lives here.
 *
 * A reference is `{<state module>: <id or name>}`, `{id: <id>}` (any module), `{sls: <sls>}`
 * (every chunk of that SLS), or a bare string (an ID, any module). Names and SLS may be globs,
 * as in Salt.
 */
export interface RequisiteTarget {
  /** The state module, or `id` / `sls` / `*` (bare string: an ID of any module). */
  kind: string;
  value: string;
}

export function parseRequisiteRef(ref: unknown): RequisiteTarget | undefined {
  if (typeof ref === 'string') return { kind: 'id', value: ref };
  if (ref === null || typeof ref !== 'object' || Array.isArray(ref)) return undefined;
  // the one own key, without a list of keys per reference (every requisite of a run is parsed)
  let kind: string | undefined;
  for (const k in ref) {
    if (!Object.hasOwn(ref, k)) continue;
    if (kind !== undefined) return undefined;
    kind = k;
  }
  if (kind === undefined) return undefined;
  const value = (ref as Record<string, unknown>)[kind];
  if (typeof value === 'string') return { kind, value };
  if (typeof value === 'number' || typeof value === 'boolean') return { kind, value: String(value) };
  return undefined;
}

export function formatRequisiteRef(t: RequisiteTarget): string {
  return `${t.kind}: ${t.value}`;
}

/** Chunks indexed for requisite lookups: O(1) per exact reference, no scan of the low state. */
function add(map: Map<string, LowChunk[]>, key: string, c: LowChunk): void {
  const list = map.get(key);
  if (list) list.push(c);
  else map.set(key, [c]);
}

export class ChunkIndex {
  /** Chunks by ID (any module); a `{module: x}` reference reads the list and keeps that module's. */
  private readonly byId = new Map<string, LowChunk[]>();
  /** Chunks by name, only those whose name is not their ID (a state's ID is usually its name). */
  private readonly byOtherName = new Map<string, LowChunk[]>();
  private readonly bySls = new Map<string, LowChunk[]>();

  readonly chunks: readonly LowChunk[];
  constructor(chunks: readonly LowChunk[]) {
    this.chunks = chunks;
    // indexed: no iterator result per chunk before the optimiser has this code
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      const id = String(c.__id__);
      add(this.byId, id, c);
      const name = String(c.name);
      if (name !== id) add(this.byOtherName, name, c);
      add(this.bySls, c.__sls__, c);
      // As Salt, `sls: X` also names the states of the files X includes (directly or not).
      const included = c.__sls_included_from__;
      if (included) {
        for (const from of included) if (from !== c.__sls__ && this.bySls.get(from)?.at(-1) !== c) add(this.bySls, from, c);
      }
    }
  }

  /** Resolved glob references: the runtime and verify ask the same ones many times. */
  private readonly memo = new Map<string, Map<string, LowChunk[]>>();

  /** Every chunk a reference names, in low state order, without duplicates (read-only). */
  resolve(target: RequisiteTarget): LowChunk[] {
    const { kind, value } = target;
    if (!isGlob(value)) return this.exact(kind, value);
    let memo = this.memo.get(kind);
    if (!memo) this.memo.set(kind, (memo = new Map()));
    let found = memo.get(value);
    if (!found) {
      found = this.glob(kind, value);
      memo.set(value, found);
    }
    return found;
  }

  /** The chunks an arg_bind reference reads from: ID `id` of module `state`, named `resource` when given. */
  resolveArgBind(state: string, id: string, resource?: string): LowChunk[] {
    return this.resolve({ kind: state, value: id }).filter((c) => c.__id__ === id && (resource === undefined || c.name === resource));
  }

  /** A reference without a glob: the module's chunks with that ID, then those with that name (another ID). */
  private exact(kind: string, value: string): LowChunk[] {
    if (kind === 'sls') return this.bySls.get(value) ?? NOTHING;
    const byId = this.byId.get(value) ?? NOTHING;
    if (kind === 'id' || kind === '*') return byId;
    const byName = this.byOtherName.get(value);
    // the usual case: one list, every chunk of it of that module, returned as it is (a loop: no
    // closure per reference, every requisite of a run comes here)
    if (!byName && allOf(byId, kind)) return byId;
    const out = byId.filter((c) => c.state === kind);
    if (byName) for (const c of byName) if (c.state === kind) out.push(c);
    return out;
  }

  private glob(kind: string, value: string): LowChunk[] {
    const re = globToRegExp(value);
    // Salt globs `__sls__` but looks the value up as it is in `__sls_included_from__`.
    if (kind === 'sls') return this.chunks.filter((c) => re.test(c.__sls__) || (c.__sls_included_from__?.includes(value) ?? false));
    if (kind === 'id' || kind === '*') return this.chunks.filter((c) => re.test(c.__id__));
    return this.chunks.filter((c) => c.state === kind && (re.test(c.__id__) || re.test(c.name)));
  }
}

/** Whether every chunk of `chunks` is of module `state`. */
function allOf(chunks: readonly LowChunk[], state: string): boolean {
  for (let i = 0; i < chunks.length; i++) if (chunks[i]!.state !== state) return false;
  return true;
}

/** What a reference that names nothing resolves to (never written to). */
const NOTHING: LowChunk[] = [];

/**
 * The requisite kinds a chunk depends on at run time (not the `_in` forms: the compiler folds
 * those), in the order the runtime runs their targets (Salt's order). `prerequired` is what the
 * compiler adds to a prereq target; `arg_bind` orders a state after the states its argument
 * references read from; `listen` is evaluated at the end of the run.
 */
export const EVAL_REQUISITES = [
  'require',
  'require_any',
  'watch',
  'watch_any',
  'prereq',
  'prerequired',
  'onfail',
  'onfail_any',
  'onfail_all',
  'onchanges',
  'onchanges_any',
  'arg_bind',
  'listen',
] as const;
export type EvalRequisite = (typeof EVAL_REQUISITES)[number];

/** The kinds that name their targets as plain references (verify checks these). */
export const RUNTIME_REQUISITES: readonly EvalRequisite[] = EVAL_REQUISITES.filter((k) => k !== 'prerequired' && k !== 'onfail_all' && k !== 'arg_bind');

export interface DeclaredRequisite<K extends string = string> {
  key: K;
  ref: unknown;
  target?: RequisiteTarget;
}

/**
 * The `(kind, target)` pairs a chunk declares for `kinds`, kind by kind in that order, each
 * kind's references in declaration order. A kind given as a single reference rather than a
 * list counts only with `single`.
 */
export function chunkRequisites<K extends string>(
  chunk: LowChunk,
  kinds: readonly K[] = RUNTIME_REQUISITES as unknown as readonly K[],
  single = false,
): Array<DeclaredRequisite<K>> {
  const out: Array<DeclaredRequisite<K>> = [];
  for (const key of kinds) {
    const list = chunk[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) && !single) continue;
    for (const ref of Array.isArray(list) ? list : [list]) {
      const target = parseRequisiteRef(ref);
      out.push(target ? { key, ref, target } : { key, ref });
    }
  }
  return out;
}
