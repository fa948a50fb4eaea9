import {
  ChunkIndex,
  formatRequisiteRef,
  parseRequisiteRef,
  REQUISITE_KEYS,
  RUNTIME_REQUISITES,
  type RequisiteTarget,
  type Diagnostic,
  type HighData,
  type LowChunk,
  type StateArg,
} from '@brine/core';
import { compilerErrors } from './errors.js';
import { locate, type IdOrigin } from './gather.js';
import { argKey, isDict, type Decl } from './high-util.js';

/**
 * The verify stage: every problem, not just the first, each with the file, line and column of
 * the SLS where known. `verifyHigh` checks the structure of declarations; `verifyLow` checks
 * requisite references and cycles across the compiled chunks.
 */
export interface StateSchema {
  /** Whether the state module exists; the compiler cannot see the registry, so it is injected. */
  hasModule(state: string): boolean;
  hasFunction(state: string, fun: string): boolean;
  /** How `state.fun` takes a keyword it does not declare: 'ignored', 'refused', or undefined (it declares it, or takes any). */
  unknownArg?(state: string, fun: string, key: string): 'ignored' | 'refused' | undefined;
}

const UNKNOWN_ARG_WHAT = {
  ignored: 'Salt ignores it (a state with a template passes it to the template)',
  refused: 'Salt stops the whole run on it; Brine fails this state',
} as const;

const at = (origins: Record<string, IdOrigin> | undefined, id: string, path?: string) => locate(origins, id, path, true);

/** Requisite keys by their first three letters: most argument keys match none. */
const REQUISITES_BY_PREFIX = new Map<string, string[]>();
for (const req of REQUISITE_KEYS) {
  const list = REQUISITES_BY_PREFIX.get(req.slice(0, 3));
  if (list) list.push(req);
  else REQUISITES_BY_PREFIX.set(req.slice(0, 3), [req]);
}

/** A short edit distance, to suggest `require` for `requires`. */
function near(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false;
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return dp[a.length]![b.length]! <= 2;
}

const KNOWN_ID_KEYS = new Set(['__sls__', '__env__', '__sls_included_from__']);

/** What onlyFunction answers for a declaration naming several functions. */
const MANY = Symbol('several functions');

/** A declaration's one function name; undefined for none, MANY for several. */
function onlyFunction(run: StateArg[]): string | typeof MANY | undefined {
  let fun: string | undefined;
  for (let i = 0; i < run.length; i++) {
    const a = run[i];
    if (typeof a !== 'string') continue;
    if (fun !== undefined) return MANY;
    fun = a;
  }
  return fun;
}

function functions(run: StateArg[]): string[] {
  return run.filter((a): a is string => typeof a === 'string');
}

/**
 * A requisite reference Salt takes: an ID, or `{<module>: <ID or name>}` with a string or number
 * (`- pkg.installed: vim` names a function, not a module). requisiteTarget's answer, without an
 * object per reference.
 */
function goodRef(ref: unknown): boolean {
  if (typeof ref === 'string') return true;
  if (!isDict(ref)) return false;
  let kind: string | undefined;
  for (const k in ref) {
    if (!Object.hasOwn(ref, k)) continue;
    if (kind !== undefined) return false;
    kind = k;
  }
  if (kind === undefined) return false;
  const v = ref[kind];
  return (typeof v === 'string' || typeof v === 'number') && !kind.includes('.');
}

export function verifyHigh(
  high: HighData,
  origins?: Record<string, IdOrigin>,
  schema?: StateSchema,
  idList: readonly string[] = Object.keys(high),
): { value: HighData; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const err = (
    code: Parameters<typeof compilerErrors.diag>[0],
    args: Record<string, unknown>,
    id: string,
    path?: string,
    severity: 'error' | 'warning' = 'error',
  ) => diagnostics.push(compilerErrors.diag(code, args, at(origins, id, path), severity));

  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    if (id.startsWith('__')) continue;
    const decl = high[id] as Decl;
    if (!isDict(decl)) {
      err('BRINE_ERR_COMPILE_ID_NOT_DICT', { id, sls: '?', got: typeof decl }, id);
      continue;
    }
    let stateCount = 0;
    for (const state in decl) {
      const run = decl[state];
      if (state.startsWith('__')) {
        if (!KNOWN_ID_KEYS.has(state)) err('BRINE_ERR_COMPILE_UNKNOWN_KEY', { id, key: state, what: 'key' }, id, undefined, 'warning');
        continue;
      }
      stateCount++;
      if (!Array.isArray(run)) {
        err('BRINE_ERR_COMPILE_BAD_STATE_DECL', { id, state, got: run === null ? 'nothing' : isDict(run) ? 'a dictionary' : JSON.stringify(run) }, id, state);
        continue;
      }
      // the function (a list of them only to report several: no array per state of a tree)
      const fun = onlyFunction(run as StateArg[]);
      if (fun === undefined) err('BRINE_ERR_COMPILE_NO_FUNCTION', { id, state }, id, state);
      else if (fun === MANY) err('BRINE_ERR_COMPILE_MULTIPLE_FUNCTIONS', { id, state, functions: functions(run as StateArg[]).join(', ') }, id, state);
      const one = fun === MANY ? undefined : fun;
      if (schema && !schema.hasModule(state)) {
        err('BRINE_ERR_COMPILE_UNKNOWN_KEY', { id, key: state, what: 'state module' }, id, state, 'warning');
      } else if (schema && one !== undefined && !schema.hasFunction(state, one)) {
        err('BRINE_ERR_COMPILE_UNKNOWN_KEY', { id, key: `${state}.${one}`, what: 'state function' }, id, state, 'warning');
      }
      // an index loop, not forEach: no closure per declaration (every state of a tree comes here)
      for (let index = 0; index < run.length; index++) {
        const arg: unknown = run[index];
        if (typeof arg === 'string') continue;
        const key = argKey(arg);
        if (key === undefined && isDict(arg) && REQUISITE_KEYS.has(Object.keys(arg)[0] ?? '')) {
          const keys = Object.keys(arg);
          err('BRINE_ERR_COMPILE_MULTI_KEY_REQUISITE', { id, state, index: index + 1, key: keys[0], keys: keys.join(', ') }, id, `${state}/${keys[0]}`);
          continue;
        }
        if (!isDict(arg)) {
          // Salt skips an argument that is neither a function name nor a dictionary (a template
          // that printed `- False`); so does Brine, saying where.
          err('BRINE_ERR_COMPILE_IGNORED_ARG', { id, state, index: index + 1, got: JSON.stringify(arg) ?? String(arg) }, id, state, 'warning');
          continue;
        }
        if (key === undefined) {
          err('BRINE_ERR_COMPILE_BAD_ARG', { id, state, index: index + 1, got: JSON.stringify(arg) }, id, state);
          continue;
        }
        const value = (arg as Record<string, unknown>)[key];
        // the argument's path is made for a finding only (every argument of a tree comes here)
        if (REQUISITE_KEYS.has(key)) {
          if (!Array.isArray(value)) {
            err('BRINE_ERR_COMPILE_BAD_REQUISITE', { id, requisite: key, got: isDict(value) ? 'a dictionary' : JSON.stringify(value) }, id, `${state}/${key}`);
            continue;
          }
          for (let r = 0; r < value.length; r++) {
            const ref = value[r]!;
            if (!goodRef(ref)) err('BRINE_ERR_COMPILE_BAD_REQUISITE', { id, requisite: key, got: JSON.stringify(ref) }, id, `${state}/${key}`);
          }
        } else if (key === 'names') {
          if (!Array.isArray(value)) err('BRINE_ERR_COMPILE_BAD_NAMES', { id, got: JSON.stringify(value) }, id, `${state}/${key}`);
        } else if (key === 'order') {
          const ok = typeof value === 'number' || value === 'first' || value === 'last';
          // Salt gives any other string the default order (it never reads '10' as 10).
          if (!ok && typeof value === 'string') err('BRINE_ERR_COMPILE_ORDER_STRING', { id, got: JSON.stringify(value) }, id, `${state}/${key}`, 'warning');
          else if (!ok) err('BRINE_ERR_COMPILE_BAD_ORDER', { id, got: JSON.stringify(value) }, id, `${state}/${key}`);
        } else {
          // Only long keys sharing a prefix: short real arguments (`user`) must not trip this.
          const suggestion = key.length >= 6 ? REQUISITES_BY_PREFIX.get(key.slice(0, 3))?.find((req) => near(key, req)) : undefined;
          if (suggestion) err('BRINE_ERR_COMPILE_SUSPICIOUS_ARG', { id, key, suggestion }, id, `${state}/${key}`, 'warning');
          const how = !suggestion && one !== undefined && key !== 'name' ? schema?.unknownArg?.(state, one, key) : undefined;
          if (how) err('BRINE_ERR_COMPILE_UNKNOWN_ARG', { id, key, fun: `${state}.${one}`, what: UNKNOWN_ARG_WHAT[how] }, id, `${state}/${key}`, 'warning');
        }
      }
    }
    if (stateCount === 0) err('BRINE_ERR_COMPILE_NO_FUNCTION', { id, state: '(none)' }, id);
  }
  return { value: high, diagnostics };
}

/** The out-edges of a chunk that has none (shared, never written to). */
const NO_EDGES: number[] = [];

/** Edges that order execution (listen runs at the end and prereq forks; neither can deadlock). */
const ORDERING = new Set(['require', 'require_any', 'watch', 'watch_any', 'onchanges', 'onchanges_any', 'onfail', 'onfail_any']);

export function verifyLow(chunks: LowChunk[], origins?: Record<string, IdOrigin>): { value: LowChunk[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const index = new ChunkIndex(chunks);
  // where a target is in the list: in a chain (the usual tree) the chunk just before; any other
  // from a map made at the first such lookup (no 10,000-entry map for a chain)
  let pos: Map<LowChunk, number> | undefined;
  const posOf = (t: LowChunk, i: number): number => {
    if (chunks[i - 1] === t) return i - 1;
    if (pos === undefined) {
      pos = new Map();
      for (let p = 0; p < chunks.length; p++) pos.set(chunks[p]!, p);
    }
    return pos.get(t)!;
  };
  // a chunk's out-edges get a list of their own at the first edge (most chunks have one kind of
  // edge at most: no three empty lists per chunk)
  const edges: number[][] = new Array<number[]>(chunks.length).fill(NO_EDGES);
  const slsEdges: number[][] = new Array<number[]>(chunks.length).fill(NO_EDGES);
  const prereqEdges: number[][] = new Array<number[]>(chunks.length).fill(NO_EDGES);
  const edge = (graph: number[][], from: number, to: number) => (graph[from] === NO_EDGES ? (graph[from] = [to]) : graph[from]!.push(to));
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    for (let k = 0; k < RUNTIME_REQUISITES.length; k++) {
      // chunkRequisites(c) inline: no list and no entry per requisite
      const key = RUNTIME_REQUISITES[k]!;
      const list = c[key];
      if (!Array.isArray(list)) continue;
      for (let r = 0; r < list.length; r++) {
        const ref = list[r]!;
        const target = parseRequisiteRef(ref);
        if (!target) continue;
        checkRef(c, i, key, target);
      }
    }
  }
  function checkRef(c: LowChunk, i: number, key: string, target: RequisiteTarget): void {
    const found = index.resolve(target);
    if (found.length === 0) {
      // Not fatal, as in Salt: this one state fails at run time, the others run.
      diagnostics.push(
        compilerErrors.diag(
          'BRINE_ERR_COMPILE_REQUISITE_NOT_FOUND',
          { id: c.__id__, requisite: key, ref: formatRequisiteRef(target) },
          at(origins, c.__id__, `${c.state}/${key}`),
          'warning',
        ),
      );
      return;
    }
    for (let j = 0; j < found.length; j++) {
      const t = found[j]!;
      if (ORDERING.has(key)) edge(target.kind === 'sls' ? slsEdges : edges, i, posOf(t, i));
      else if (key === 'prereq') edge(prereqEdges, i, posOf(t, i));
    }
  }
  const cycleDiag = (cycle: number[], label: string, code: 'BRINE_ERR_COMPILE_CYCLE' | 'BRINE_ERR_COMPILE_SLS_CYCLE', severity: 'error' | 'warning') => {
    const names = cycle.map((i) => `${chunks[i]!.__sls__}.${chunks[i]!.__id__}`);
    const first = chunks[cycle[0]!]!;
    diagnostics.push(
      compilerErrors.diag(code, { cycle: [...names, names[0]].join(` ${label} `) }, at(origins, first.__id__, `${first.state}/require`), severity),
    );
  };
  const strict = findCycles(edges);
  for (const cycle of strict) cycleDiag(cycle, 'requires', 'BRINE_ERR_COMPILE_CYCLE', 'error');
  if (prereqEdges.some((out) => out.length > 0)) {
    for (const cycle of findCycles(prereqEdges)) cycleDiag(cycle, 'is a prereq of', 'BRINE_ERR_COMPILE_CYCLE', 'error');
  }
  // Salt finds no loop through `sls:` when it compiles (a state of an included file that
  // requires the SLS including it is common in formulas): each state on it fails at run time
  // with "Recursive requisite found" and the rest of the run goes on. Brine says where.
  // Without `sls:` edges every such loop is one of the strict ones, already reported.
  if (slsEdges.some((out) => out.length > 0)) {
    const inStrict = new Set(strict.flat());
    const all = edges.map((out, i) => [...out, ...slsEdges[i]!]);
    for (const cycle of findCycles(all)) if (!cycle.some((i) => inStrict.has(i))) cycleDiag(cycle, 'requires', 'BRINE_ERR_COMPILE_SLS_CYCLE', 'warning');
  }
  return { value: chunks, diagnostics };
}

/**
 * One cycle per strongly connected component (Tarjan, iterative: requisite chains get long). The
 * walk's path is kept in two typed arrays and a component of one state makes no list: a tree of
 * 10,000 states has 10,000 components.
 */
function findCycles(graph: number[][]): number[][] {
  const n = graph.length;
  // a cycle needs an edge to the same or a later chunk; a low state whose requisites all name
  // earlier chunks (most: the order puts what is required first) has none, and no walk is made
  if (onlyBackEdges(graph)) return [];
  const indexOf = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const cycles: number[][] = [];
  // the path: a node and the index of its next edge; a node goes on it once (unvisited), so n fits
  const pathNode = new Int32Array(n);
  const pathEdge = new Int32Array(n);
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (indexOf[root] !== -1) continue;
    pathNode[0] = root;
    pathEdge[0] = 0;
    let depth = 1;
    while (depth > 0) {
      const v = pathNode[depth - 1]!;
      const ei = pathEdge[depth - 1]!;
      if (ei === 0 && indexOf[v] === -1) {
        indexOf[v] = low[v] = counter++;
        stack.push(v);
        onStack[v] = 1;
      }
      const out = graph[v]!;
      if (ei < out.length) {
        pathEdge[depth - 1] = ei + 1;
        const w = out[ei]!;
        if (indexOf[w] === -1) {
          pathNode[depth] = w;
          pathEdge[depth] = 0;
          depth++;
        } else if (onStack[w]) low[v] = Math.min(low[v]!, indexOf[w]!);
        continue;
      }
      depth--;
      if (depth > 0) {
        const parent = pathNode[depth - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] !== indexOf[v]) continue;
      if (stack[stack.length - 1] === v) {
        // a component of one node: a cycle only through an edge to itself
        stack.pop();
        onStack[v] = 0;
        if (out.includes(v)) cycles.push(cyclePath(graph, new Set([v]), v));
        continue;
      }
      const comp: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = 0;
        comp.push(w);
      } while (w !== v);
      cycles.push(cyclePath(graph, new Set(comp), v));
    }
  }
  return cycles;
}

function onlyBackEdges(graph: number[][]): boolean {
  for (let v = 0; v < graph.length; v++) {
    const out = graph[v]!;
    for (let k = 0; k < out.length; k++) if (out[k]! >= v) return false;
  }
  return true;
}

/** A concrete cycle through `start` inside one component, for a readable message. */
function cyclePath(graph: number[][], comp: Set<number>, start: number): number[] {
  const prev = new Map<number, number>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph[v]!) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [v];
        let x = v;
        while (x !== start) {
          x = prev.get(x)!;
          path.push(x);
        }
        return path.reverse();
      }
      if (!seen.has(w)) {
        seen.add(w);
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}
