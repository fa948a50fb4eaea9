import type { HighData, StateArg } from '@brine/core';

/** Small readers over standard-form high data, shared by the reconcile and verify stages. */
export type Decl = Record<string, unknown> & { __sls__?: string; __env__?: string };

export function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The IDs of high data in order, without the stashed `__extend__`/`__exclude__`. */
export function ids(high: HighData): string[] {
  return Object.keys(high).filter((k) => !k.startsWith('__'));
}

/** The state module keys of a declaration (`pkg`, `service`, ...). */
export function stateKeys(decl: Decl): string[] {
  return Object.keys(decl).filter((k) => !k.startsWith('__') && Array.isArray(decl[k]));
}

export function argKey(arg: unknown): string | undefined {
  if (!isDict(arg)) return undefined;
  const keys = Object.keys(arg);
  return keys.length === 1 ? keys[0] : undefined;
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
      const hit =
        n === name ||
        (Array.isArray(names) && names.some((e) => e === name || (isDict(e) && Object.keys(e)[0] === name)));
      if (hit) out.push([id, s]);
    }
  }
  return out;
}

/** Every (id, state) of an SLS (requisites on `- sls: x`). */
export function findSls(high: HighData, sls: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const id of ids(high)) {
    const decl = high[id] as Decl;
    if (!isDict(decl) || decl.__sls__ !== sls) continue;
    for (const s of stateKeys(decl)) out.push([id, s]);
  }
  return out;
}

/** A deep copy of JSON data, faster than structuredClone for the shapes high data has. */
export function cloneJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneJson) as T;
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = cloneJson((v as Record<string, unknown>)[k]);
    return out as T;
  }
  return v;
}
