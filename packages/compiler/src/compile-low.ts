import type { Diagnostic, HighData, LowChunk, StateArg } from '@brine/core';
import { ids, isDict, stateKeys, type Decl } from './high-util.js';

/**
 * The compile stage: each state declaration becomes one low chunk per name, with its arguments
 * flattened in declaration order and `fun` last (the key order Salt users see). Structural
 * problems were reported by verify; here anything malformed is skipped. Chunks share argument
 * values with the high data (no stage mutates them), which keeps 10,000-state compiles cheap.
 */
export function compileLow(high: HighData): { value: LowChunk[]; diagnostics: Diagnostic[] } {
  const chunks: LowChunk[] = [];
  for (const id of ids(high)) {
    const body = high[id] as Decl;
    if (!isDict(body)) continue;
    for (const state of stateKeys(body)) {
      const run = body[state] as StateArg[];
      const funcs: string[] = [];
      const names: unknown[] = [];
      const chunk: Record<string, unknown> = { state, name: id };
      if ('__sls__' in body) chunk.__sls__ = body.__sls__;
      if ('__env__' in body) chunk.__env__ = body.__env__;
      if ('__sls_included_from__' in body) chunk.__sls_included_from__ = body.__sls_included_from__;
      chunk.__id__ = id;
      for (const arg of run) {
        if (typeof arg === 'string') {
          if (!funcs.includes(arg)) funcs.push(arg);
          continue;
        }
        if (!isDict(arg)) continue;
        for (const [key, val] of Object.entries(arg)) {
          if (key === 'names') {
            if (Array.isArray(val)) for (const n of val) if (!names.some((x) => sameName(x, n))) names.push(n);
          } else if (key === 'state') {
            continue;
          } else if (key === 'name' && typeof val !== 'string') {
            chunk.name = pyStr(val);
          } else {
            chunk[key] = val;
          }
        }
      }
      if (names.length > 0) {
        let nameOrder = 1;
        for (const entry of names) {
          const live: Record<string, unknown> = { ...chunk };
          if (isDict(entry)) {
            const lowName = Object.keys(entry)[0]!;
            live.name = lowName;
            const overrides = entry[lowName];
            if (Array.isArray(overrides)) for (const o of overrides) if (isDict(o)) Object.assign(live, o);
          } else {
            live.name = pyStr(entry);
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
function pushPerFunction(chunks: LowChunk[], chunk: Record<string, unknown>, funcs: string[]): void {
  if (funcs.length === 1) {
    chunk.fun = funcs[0];
    chunks.push(chunk as LowChunk);
    return;
  }
  for (const fun of funcs) chunks.push({ ...chunk, fun } as LowChunk);
}

function sameName(a: unknown, b: unknown): boolean {
  const key = (x: unknown) => (isDict(x) ? Object.keys(x)[0] : x);
  return key(a) === key(b);
}

/** How Python prints a scalar, since names reach Salt users as strings. */
function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}
