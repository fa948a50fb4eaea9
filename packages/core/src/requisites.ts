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
  const keys = Object.keys(ref);
  if (keys.length !== 1) return undefined;
  const kind = keys[0]!;
  const value = (ref as Record<string, unknown>)[kind];
  if (typeof value === 'string') return { kind, value };
  if (typeof value === 'number' || typeof value === 'boolean') return { kind, value: String(value) };
  return undefined;
}

export function formatRequisiteRef(t: RequisiteTarget): string {
  return `${t.kind}: ${t.value}`;
}

/** Chunks indexed for requisite lookups: O(1) per exact reference, no scan of the low state. */
/** Lists by two keys (state, then ID or name): no joined key string per chunk or per lookup. */
type ByTwo = Map<string, Map<string, LowChunk[]>>;

function addTwo(map: ByTwo, a: string, b: string, c: LowChunk): void {
  let inner = map.get(a);
  if (!inner) map.set(a, (inner = new Map()));
  const list = inner.get(b);
  if (list) list.push(c);
  else inner.set(b, [c]);
}

export class ChunkIndex {
  private readonly byStateId: ByTwo = new Map();
  private readonly byStateName: ByTwo = new Map();
  private readonly byId = new Map<string, LowChunk[]>();
  private readonly bySls = new Map<string, LowChunk[]>();

  readonly chunks: readonly LowChunk[];
  constructor(chunks: readonly LowChunk[]) {
    this.chunks = chunks;
    const add = (map: Map<string, LowChunk[]>, key: string, c: LowChunk) => {
      const list = map.get(key);
      if (list) list.push(c);
      else map.set(key, [c]);
    };
    for (const c of chunks) {
      addTwo(this.byStateId, String(c.state), String(c.__id__), c);
      addTwo(this.byStateName, String(c.state), String(c.name), c);
      add(this.byId, c.__id__, c);
      add(this.bySls, c.__sls__, c);
      // As Salt, `sls: X` also names the states of the files X includes (directly or not).
      for (const from of c.__sls_included_from__ ?? []) {
        if (from !== c.__sls__ && this.bySls.get(from)?.at(-1) !== c) add(this.bySls, from, c);
      }
    }
  }

  /** Resolved references: the runtime and verify ask the same ones many times, globs included. */
  private readonly memo: ByTwo = new Map();

  /** Every chunk a reference names, in low state order, without duplicates (read-only). */
  resolve(target: RequisiteTarget): LowChunk[] {
    let memo = this.memo.get(target.kind);
    if (!memo) this.memo.set(target.kind, (memo = new Map()));
    let found = memo.get(target.value);
    if (!found) {
      found = this.lookup(target);
      memo.set(target.value, found);
    }
    return found;
  }

  /** The chunks an arg_bind reference reads from: ID `id` of module `state`, named `resource` when given. */
  resolveArgBind(state: string, id: string, resource?: string): LowChunk[] {
    return this.resolve({ kind: state, value: id }).filter((c) => c.__id__ === id && (resource === undefined || c.name === resource));
  }

  private lookup(target: RequisiteTarget): LowChunk[] {
    const { kind, value } = target;
    if (kind === 'sls') {
      if (!isGlob(value)) return this.bySls.get(value) ?? [];
      // Salt globs `__sls__` but looks the value up as it is in `__sls_included_from__`.
      const re = globToRegExp(value);
      return this.chunks.filter((c) => re.test(c.__sls__) || (c.__sls_included_from__?.includes(value) ?? false));
    }
    if (kind === 'id' || kind === '*') {
      if (!isGlob(value)) return this.byId.get(value) ?? [];
      const re = globToRegExp(value);
      return this.chunks.filter((c) => re.test(c.__id__));
    }
    if (!isGlob(value)) {
      const byId = this.byStateId.get(kind)?.get(value) ?? [];
      const byName = this.byStateName.get(kind)?.get(value) ?? [];
      if (byName.length === 0) return byId;
      if (byId.length === 0) return byName;
      // the usual case: the state's ID is its name, both name the same chunks
      if (byName.every((c) => byId.includes(c))) return byId;
      const seen = new Set<LowChunk>(byId);
      return [...byId, ...byName.filter((c) => !seen.has(c))];
    }
    const re = globToRegExp(value);
    return this.chunks.filter((c) => c.state === kind && (re.test(c.__id__) || re.test(c.name)));
  }
}

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
