import type { Diagnostic, HighData, StateArg } from '@brine/core';
import { IN_REQUISITES, REQUISITE_KEYS } from '@brine/core';
import { compilerErrors } from './errors.js';
import { locate, type IdOrigin } from './gather.js';
import { globMatch } from './glob.js';
import { argKey, argKeys, cloneJson, findName, findSls, ids, isDict, requisiteTarget, type Decl } from './high-util.js';

/**
 * The reconcile stage: user `extend`, then requisite_in (`*_in`, `use`, `prereq`) folded into
 * extends, then `exclude`. Input high data is not modified.
 */
export interface ReconcileInput {
  high: HighData;
  origins?: Record<string, IdOrigin>;
  /** The IDs of `high` in order, when the caller listed them (ids()). */
  ids?: readonly string[];
}

// listen_in is not folded: Salt keeps it on the declaring chunk and reads it at the end of the
// run (the runtime's foldListenIn).
// What `use`/`use_in` never copy: Salt's list of requisites it folds at compile time. The others
// (listen, listen_in, the _any forms, prerequired...) are copied like any argument, as in Salt.
const USE_SKIPS: ReadonlySet<string> = new Set([
  'require',
  'watch',
  'onfail',
  'onfail_stop',
  'onchanges',
  'prereq',
  'require_in',
  'watch_in',
  'onfail_in',
  'onchanges_in',
  'prereq_in',
  'use',
  'use_in',
]);
const IN_KEYS: ReadonlySet<string> = new Set(IN_REQUISITES.filter((k) => k !== 'listen_in'));

type Extend = Array<Record<string, Record<string, unknown>>>;

/**
 * Copy-on-write over high data: only the declarations and argument lists an extend touches are
 * copied, so the caller's high data stays unchanged without a deep copy of everything. The top
 * level too is copied at the first write: most trees extend nothing, and a copy of 10,000 IDs is
 * not free.
 */
export class CowHigh {
  private readonly decls = new Set<string>();
  private readonly lists = new Set<string>();
  readonly #source: HighData;
  #copy: HighData | undefined;
  constructor(high: HighData) {
    this.#source = high;
  }
  /** The high data: the caller's until the first write, then the copy. */
  get high(): HighData {
    return this.#copy ?? this.#source;
  }
  /** The copy, made now: what a stage reads before it writes must be what it writes to. */
  own(): HighData {
    return (this.#copy ??= { ...this.#source });
  }
  decl(id: string): Decl {
    const high = this.own();
    if (!this.decls.has(id)) {
      high[id] = { ...(high[id] as Decl) };
      this.decls.add(id);
    }
    return high[id] as Decl;
  }
  list(id: string, state: string): StateArg[] {
    const decl = this.decl(id);
    const key = `${id}\0${state}`;
    if (!this.lists.has(key)) {
      decl[state] = [...(decl[state] as StateArg[])];
      this.lists.add(key);
    }
    return decl[state] as StateArg[];
  }
}

const where = locate;

/** Applies extend data: requisite lists are merged, other arguments replaced, functions swapped. */
export function applyExtend(cow: CowHigh, extend: Extend, diagnostics: Diagnostic[], origins?: Record<string, IdOrigin>, strictMissing = true): void {
  if (extend.length === 0) return;
  const high = cow.own();
  for (const chunk of extend) {
    for (const [extId, body] of Object.entries(chunk)) {
      let id = extId;
      const stateType = Object.keys(body).find((k) => !k.startsWith('__')) ?? 'id';
      // A requisite_in keyed by a target's name may meet an ID of that name with other states
      // only: as Salt (strict), the target is then found by name.
      const lacksState = !strictMissing && isDict(high[id]) && !Array.isArray((high[id] as Decl)[stateType]);
      if (!isDict(high[id]) || id.startsWith('__') || lacksState) {
        const found = [...new Set(findName(high, extId, stateType).map(([i]) => i))];
        if (found.length !== 1) {
          if (strictMissing) {
            const sls = String(body.__sls__ ?? '?');
            diagnostics.push(
              compilerErrors.diag(
                'BRINE_ERR_COMPILE_EXTEND_MISSING',
                { sls, id: extId },
                { sls, env: String(body.__env__ ?? ''), id: extId, file: origins ? Object.values(origins).find((o) => o.sls === sls)?.file : undefined },
              ),
            );
          }
          continue;
        }
        id = found[0]!;
      }
      for (const [state, run] of Object.entries(body)) {
        if (state.startsWith('__') || !Array.isArray(run)) continue;
        if (!Array.isArray((high[id] as Decl)[state])) {
          if (!strictMissing && !run.some((a) => typeof a === 'string')) {
            // Salt adds such a function-less state and then compiles no chunk from it: the
            // requisite is lost. Brine does the same, and says so.
            diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_REQUISITE_IN_LOST', { id, state, from: extId }, where(origins, id), 'warning'));
            continue;
          }
          cow.decl(id)[state] = cloneJson(run);
          continue;
        }
        const target = cow.list(id, state);
        for (const arg of run as StateArg[]) {
          let updated = false;
          if (typeof arg === 'string') {
            const i = target.findIndex((v) => typeof v === 'string');
            if (i >= 0) {
              target[i] = arg;
              updated = true;
            }
          } else if (isDict(arg)) {
            const key = argKey(arg);
            if (key === undefined) continue;
            for (let i = 0; i < target.length; i++) {
              const tk = argKey(target[i]);
              if (tk === key) {
                if (REQUISITE_KEYS.has(key) && Array.isArray((target[i] as Record<string, unknown>)[key]) && Array.isArray(arg[key])) {
                  target[i] = { [key]: [...(target[i] as Record<string, unknown[]>)[key]!, ...cloneJson(arg[key] as unknown[])] };
                } else {
                  target[i] = cloneJson(arg);
                }
                updated = true;
              } else if (key === 'name' && tk === 'names') {
                target[i] = cloneJson(arg);
                updated = true;
              }
            }
          }
          if (!updated) target.push(cloneJson(arg));
        }
      }
    }
  }
}

function refsOf(
  value: unknown,
  id: string,
  key: string,
  origins: Record<string, IdOrigin> | undefined,
  stateKey: string,
  diagnostics: Diagnostic[],
): Array<[string, string]> | undefined {
  if (!Array.isArray(value)) {
    diagnostics.push(
      compilerErrors.diag(
        'BRINE_ERR_COMPILE_BAD_REQUISITE',
        { id, requisite: key, got: isDict(value) ? 'a dictionary' : JSON.stringify(value) },
        where(origins, id, `${stateKey}/${key}`),
      ),
    );
    return undefined;
  }
  const out: Array<[string, string]> = [];
  for (const item of value) {
    const target = requisiteTarget(item);
    if (target) out.push([target.kind, target.value]);
    else {
      diagnostics.push(
        compilerErrors.diag('BRINE_ERR_COMPILE_BAD_REQUISITE', { id, requisite: key, got: JSON.stringify(item) }, where(origins, id, `${stateKey}/${key}`)),
      );
    }
  }
  return out;
}

/** The (id, state) pairs a requisite_in reference names. */
function targetsOf(high: HighData, kind: string, name: string): Array<[string, string]> {
  return kind === 'sls' ? findSls(high, name) : findName(high, name, kind);
}

/** Folds `*_in`, `use`, `use_in`, `prereq` and `prereq_in` into extend data, then applies it. */
export function requisiteIn(cow: CowHigh, diagnostics: Diagnostic[], origins?: Record<string, IdOrigin>, known?: readonly string[]): void {
  const high = cow.high;
  const extend = new Map<string, Record<string, unknown>>();
  const ext = (id: string, state: string): StateArg[] => {
    let e = extend.get(id);
    if (!e) extend.set(id, (e = {}));
    return ((e[state] as StateArg[] | undefined) ?? (e[state] = [])) as StateArg[];
  };
  const addReq = (id: string, state: string, rkey: string, ref: Record<string, string>) => {
    const list = ext(id, state);
    const existing = list.find((a) => argKey(a) === rkey) as Record<string, unknown[]> | undefined;
    if (existing) existing[rkey]!.push(ref);
    else list.push({ [rkey]: [ref] });
  };
  const uses: Array<[string, string]> = [];
  // an extend adds no ID: those of the input
  const idList = known ?? ids(high);
  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    const decl = high[id] as Decl;
    if (!isDict(decl)) continue;
    // stateKeys() inline: no array per declaration
    for (const state in decl) {
      const own = decl[state] as StateArg[];
      if (state.startsWith('__') || !Array.isArray(own)) continue;
      for (let a = 0; a < own.length; a++) {
        const arg = own[a]!;
        const key = argKey(arg);
        if (key === undefined || !(IN_KEYS.has(key) || key === 'use' || key === 'prereq')) continue;
        const refs = refsOf((arg as Record<string, unknown>)[key], id, key, origins, state, diagnostics);
        if (!refs) continue;
        // Salt keeps the targets of the list's earlier entries and applies the requisite to all
        // of them again for every later entry (an `sls:` entry replaces them): a target early in
        // a list of n gets the requisite up to n times. The low state keeps those repeats.
        // Like Salt, a target named by its `name` is extended under that name (so its new
        // requisites come after those of targets named by ID, in Salt's key order).
        let hinges: Array<[string, string, string]> = [];
        for (const [kind, name] of refs) {
          const found = targetsOf(high, kind, name);
          if (found.length === 0 && kind === 'sls' && IN_KEYS.has(key)) {
            // Salt extends each state of that SLS; with none there (an SLS of only includes, or
            // one not in this run), nothing is extended and the run goes on
            hinges = [];
            diagnostics.push(
              compilerErrors.diag('BRINE_ERR_COMPILE_REQUISITE_IN_EMPTY', { id, requisite: key, sls: name }, where(origins, id, `${state}/${key}`), 'warning'),
            );
            continue;
          }
          if (found.length === 0 && key !== 'prereq') {
            if (kind === 'sls') hinges = [];
            diagnostics.push(
              compilerErrors.diag(
                'BRINE_ERR_COMPILE_REQUISITE_NOT_FOUND',
                { id, requisite: key, ref: `${kind}: ${name}` },
                where(origins, id, `${state}/${key}`),
              ),
            );
            continue;
          }
          const keyed = found.map(([tid, tstate]): [string, string, string] => [
            kind !== 'sls' && kind !== 'id' && found.length === 1 ? name : tid,
            tid,
            tstate,
          ]);
          hinges = kind === 'sls' ? keyed : [...hinges, ...keyed];
          for (const [extKey, tid, tstate] of hinges) {
            if (key === 'use' || key === 'use_in') {
              const [user, userState, used, usedState] = key === 'use' ? [id, state, tid, tstate] : [tid, tstate, id, state];
              if (user === used && userState === usedState) {
                diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_USE_SELF', { id: user }, where(origins, user)));
                continue;
              }
              uses.push([user, used]);
              const userArgs = argKeys((high[user] as Decl)[userState] as StateArg[]);
              for (const a of (high[used] as Decl)[usedState] as StateArg[]) {
                const k = argKey(a);
                if (k === undefined || userArgs.has(k) || USE_SKIPS.has(k) || k === 'name' || k === 'names') continue;
                ext(user, userState).push(a);
              }
            } else if (key === 'prereq') {
              if (tid === id && tstate === state) {
                diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_PREREQ_SELF', { id }, where(origins, id)));
                continue;
              }
              addReq(tid, tstate, 'prerequired', { [state]: id });
            } else if (key === 'prereq_in') {
              addReq(extKey, tstate, 'prereq', { [state]: id });
              addReq(id, state, 'prerequired', { [tstate]: tid });
            } else {
              addReq(extKey, tstate, key.slice(0, -3), { [state]: id });
            }
          }
        }
      }
    }
  }
  reportUseCycles(uses, diagnostics, origins);
  const extendList: Extend = [...extend].map(([id, body]) => ({ [id]: body }));
  applyExtend(cow, extendList, diagnostics, origins, false);
}

function reportUseCycles(uses: Array<[string, string]>, diagnostics: Diagnostic[], origins?: Record<string, IdOrigin>) {
  const graph = new Map<string, string[]>();
  for (const [a, b] of uses) graph.set(a, [...(graph.get(a) ?? []), b]);
  const state = new Map<string, number>();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 1) {
        const cycle = [...stack.slice(stack.indexOf(m)), m];
        diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_USE_CYCLE', { cycle: cycle.join(' uses ') }, where(origins, m)));
      } else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
}

/** Removes excluded IDs and SLS (globs allowed), after includes and extends. */
export function applyExclude(high: HighData): void {
  const exclude = high.__exclude__;
  delete high.__exclude__;
  if (!exclude) return;
  const exIds = new Set<string>();
  const exSls: string[] = [];
  for (const e of exclude as unknown[]) {
    if (typeof e === 'string') exSls.push(e);
    else if (isDict(e) && typeof e.sls === 'string') exSls.push(e.sls);
    else if (isDict(e) && typeof e.id === 'string') exIds.add(e.id);
  }
  if (exSls.length > 0) {
    for (const id of ids(high)) {
      const sls = (high[id] as Decl).__sls__;
      if (typeof sls === 'string' && exSls.some((p) => globMatch(sls, p))) exIds.add(id);
    }
  }
  for (const id of exIds) delete high[id];
}

/** The whole stage, as Salt orders it: extend, requisite_in (+use, prereq), exclude. */
export function reconcile(input: ReconcileInput): { value: HighData; diagnostics: Diagnostic[]; ids?: readonly string[] } {
  const diagnostics: Diagnostic[] = [];
  // the input is not changed: written through the copy-on-write view (no copy when nothing is)
  const cow = new CowHigh(input.high);
  const extend = (input.high.__extend__ ?? []) as Extend;
  if ('__extend__' in input.high) delete cow.own().__extend__;
  const seen = new Map<string, string>();
  for (const chunk of extend) {
    for (const [id, body] of Object.entries(chunk)) {
      const sls = String(body.__sls__ ?? '?');
      const prev = seen.get(id);
      if (prev !== undefined && prev !== sls) {
        // Salt documents this as unsupported but applies both; a warning keeps real formulas working.
        diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_EXTEND_TWICE', { id, first: prev, second: sls }, { sls, id }, 'warning'));
      }
      seen.set(id, sls);
    }
  }
  applyExtend(cow, extend, diagnostics, input.origins, true);
  requisiteIn(cow, diagnostics, input.origins, input.ids);
  // the input's IDs still, unless some were excluded
  if (!('__exclude__' in cow.high)) return { value: cow.high, diagnostics, ids: input.ids };
  applyExclude(cow.own());
  return { value: cow.high, diagnostics };
}
