import { globMatch, isDict, parseRequisiteRef, type HighData, type RequisiteTarget, type StateArg } from '@brine/core';

export { cloneJson, isDict } from '@brine/core';

/** Small readers over standard-form high data, shared by the reconcile and verify stages. */
export type Decl = Record<string, unknown> & { __sls__?: string; __env__?: string };

/**
 * The IDs of high data in order, without the stashed `__extend__`/`__exclude__`; of `keys` when
 * the caller listed them already (Object.keys of 10,000 IDs, a dictionary sorted by insertion on
 * every call, costs about a millisecond: compileMatches lists them once for its stages).
 */
export function ids(high: HighData, keys: readonly string[] = Object.keys(high)): readonly string[] {
  // the keys as they are when nothing is stashed (the usual case): no call per ID of a tree
  for (let i = 0; i < keys.length; i++) if (keys[i]!.startsWith('__')) return keys.filter((k) => !k.startsWith('__'));
  return keys;
}

/** The state module keys of a declaration (`pkg`, `service`, ...). */
export function stateKeys(decl: Decl): string[] {
  return Object.keys(decl).filter((k) => !k.startsWith('__') && Array.isArray(decl[k]));
}

/** The key of a one-key argument dict (`- name: x`), without listing its keys: a hot path. */
export function argKey(arg: unknown): string | undefined {
  if (!isDict(arg)) return undefined;
  let first: string | undefined;
  for (const k in arg) {
    if (first !== undefined) return undefined;
    first = k;
  }
  return first;
}

/** The argument keys a state declaration sets (its own, which `use` must not override). */
export function argKeys(args: StateArg[]): Set<string> {
  const out = new Set<string>();
  for (const a of args) {
    const k = argKey(a);
    if (k !== undefined) out.add(k);
  }
  return out;
}

export function argValue(args: StateArg[], key: string): unknown {
  for (const a of args) if (isDict(a) && key in a) return a[key];
  return undefined;
}

/**
 * The (id, state) pairs a reference names: the ID itself when it has that state, else any
 * declaration of that state whose `name` or `names` holds the value.
 */
export function findName(high: HighData, name: string, state: string): Array<[string, string]> {
  const direct = high[name];
  if (isDict(direct) && !name.startsWith('__')) {
    if (state === 'id' || state === '*') return stateKeys(direct as Decl).map((s) => [name, s]);
    if (Array.isArray(direct[state])) return [[name, state]];
  }
  const out: Array<[string, string]> = [];
  for (const id of ids(high)) {
    const decl = high[id] as Decl;
    if (!isDict(decl)) continue;
    for (const s of stateKeys(decl)) {
      if (state !== 'id' && state !== '*' && s !== state) continue;
      const args = decl[s] as StateArg[];
      const n = argValue(args, 'name');
      const names = argValue(args, 'names');
      const hit = n === name || (Array.isArray(names) && names.some((e) => e === name || (isDict(e) && Object.keys(e)[0] === name)));
      if (hit) out.push([id, s]);
    }
  }
  return out;
}

/** Every (id, state) of an SLS (requisites on `- sls: x`); the name may be a glob. */
export function findSls(high: HighData, sls: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const id of ids(high)) {
    const decl = high[id] as Decl;
    if (!isDict(decl) || typeof decl.__sls__ !== 'string' || !globMatch(decl.__sls__, sls)) continue;
    for (const s of stateKeys(decl)) out.push([id, s]);
  }
  return out;
}

/**
 * A requisite reference as SLS may write it: an ID, or `{<state>: <id or name>}` with a string
 * or number value (core's parser also takes booleans, which no SLS author means).
 */
export function requisiteTarget(item: unknown): RequisiteTarget | undefined {
  if (isDict(item) && typeof item[argKey(item) ?? ''] === 'boolean') return undefined;
  return parseRequisiteRef(item);
}
