import type { Diagnostic, HighData, LowChunk, StateArg } from '@brine/core';
import { ids, isDict, type Decl } from './high-util.js';

/**
 * The compile stage: each state declaration becomes one low chunk per name, with its arguments
 * flattened in declaration order and `fun` last (the key order Salt users see). Structural
 * problems were reported by verify; here anything malformed is skipped. Chunks share argument
 * values with the high data (no stage mutates them), which keeps 10,000-state compiles cheap.
 */
export function compileLow(high: HighData, known?: readonly string[]): { value: LowChunk[]; diagnostics: Diagnostic[] } {
  const chunks: LowChunk[] = [];
  const idList = ids(high, known);
  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    const body = high[id] as Decl;
    if (!isDict(body)) continue;
    // stateKeys() inline: no array per declaration
    for (const state in body) {
      const run = body[state] as StateArg[];
      if (state.startsWith('__') || !Array.isArray(run)) continue;
      // made at the first function / name, as literals (a first push makes room for 17)
      let funcs: string[] | undefined;
      let names: unknown[] | undefined;
      const chunk: Record<string, unknown> = { state, name: id };
      if ('__sls__' in body) chunk.__sls__ = body.__sls__;
      if ('__env__' in body) chunk.__env__ = body.__env__;
      if ('__sls_included_from__' in body) chunk.__sls_included_from__ = body.__sls_included_from__;
      chunk.__id__ = id;
      for (let a = 0; a < run.length; a++) {
        const arg = run[a]!;
        if (typeof arg === 'string') {
          if (!funcs) funcs = [arg];
          else if (!funcs.includes(arg)) funcs.push(arg);
          continue;
        }
        if (!isDict(arg)) continue;
        for (const key in arg) {
          const val = arg[key];
          if (key === 'names') {
            if (Array.isArray(val)) for (const n of val) if (!names?.some((x) => sameName(x, n))) (names ??= []).push(n);
          } else if (key === 'state') {
            // the state is the declaration's own key, never an argument
          } else if (key === 'name' && typeof val !== 'string') {
            // Salt's fallback for a name that is not a string (`- name: 123`): the ID
            chunk.name = id;
          } else {
            chunk[key] = val;
          }
        }
      }
      if (names) {
        let nameOrder = 1;
        for (const entry of names) {
          const live: Record<string, unknown> = { ...chunk };
          if (isDict(entry)) {
            const lowName = Object.keys(entry)[0]!;
            live.name = lowName;
            const overrides = entry[lowName];
            if (Array.isArray(overrides)) for (const o of overrides) if (isDict(o)) Object.assign(live, o);
          } else {
            // Salt keeps the value as written (`- 1` stays the number 1)
            live.name = entry;
          }
          live.name_order = nameOrder++;
          pushPerFunction(chunks, live, funcs);
        }
      } else {
        pushPerFunction(chunks, chunk, funcs);
      }
    }
  }
  return { value: chunks, diagnostics: [] };
}

/** One chunk per function, `fun` last; the usual single function reuses the object built. */
function pushPerFunction(chunks: LowChunk[], chunk: Record<string, unknown>, funcs: string[] | undefined): void {
  if (!funcs) return;
  if (funcs.length === 1) {
    chunk.fun = funcs[0];
    chunks.push(chunk as LowChunk);
    return;
  }
  for (const fun of funcs) chunks.push({ ...chunk, fun } as LowChunk);
}

/** Python's `in` over the names seen: True equals 1, dicts and lists compare by content. */
function sameName(a: unknown, b: unknown): boolean {
  const num = (x: unknown) => typeof x === 'number' || typeof x === 'boolean';
  if (num(a) && num(b)) return Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameName(x, b[i]));
  if (isDict(a) && isDict(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameName(a[k], b[k]));
  }
  return a === b;
}
