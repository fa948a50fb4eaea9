import { REQUISITE_KEYS, type Diagnostic, type HighData } from '@brine/core';
import { compilerErrors } from './errors.js';
import { locate, type IdOrigin } from './gather.js';
import { ids, isDict } from './high-util.js';

/**
 * A state argument written as one dictionary with several keys, as YAML makes of
 *
 *     - context:
 *       config: {...}
 *
 * (the second key lines up with the first instead of nesting under it). Salt applies every key
 * as its own argument, so this stage splits such a dictionary into one-key arguments, in order,
 * with a warning naming the file and line. Salt refuses the shape only when the first key is a
 * requisite ("Multiple dictionaries defined in argument"); that stays for verify to refuse.
 */
export function splitArgDicts(high: HighData, origins?: Record<string, IdOrigin>): { value: HighData; diagnostics: Diagnostic[]; ids: readonly string[] } {
  const diagnostics: Diagnostic[] = [];
  const splitRun = (id: string, state: string, run: unknown[]): unknown[] | undefined => {
    if (!run.some(manyKeys)) return undefined;
    let out: unknown[] | undefined;
    run.forEach((arg, i) => {
      // most arguments have one key: say so without listing them (every argument of a tree comes here)
      const keys = isDict(arg) && !oneKey(arg) ? Object.keys(arg) : undefined;
      if (keys === undefined || keys.length < 2 || REQUISITE_KEYS.has(keys[0]!)) {
        out?.push(arg);
        return;
      }
      out ??= run.slice(0, i);
      for (const k of keys) out.push({ [k]: (arg as Record<string, unknown>)[k] });
      diagnostics.push(
        compilerErrors.diag(
          'BRINE_ERR_COMPILE_MULTI_KEY_ARG',
          { id, state, index: i + 1, keys: keys.join(', ') },
          locate(origins, id, `${state}/${keys[0]}`, true),
          'warning',
        ),
      );
    });
    return out;
  };
  const splitDecl = (id: string, decl: unknown): unknown => {
    if (!isDict(decl) || !anyManyKeys(decl)) return decl;
    let copy: Record<string, unknown> | undefined;
    for (const state in decl) {
      const run = decl[state];
      if (state.startsWith('__') || !Array.isArray(run)) continue;
      const next = splitRun(id, state, run);
      if (next) (copy ??= { ...decl })[state] = next;
    }
    return copy ?? decl;
  };
  let out: HighData | undefined;
  // the keys, then an index loop: for-in over an object of 10,000 keys (a dictionary) costs more
  const idList = Object.keys(high);
  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    const decl = high[id];
    if (id === '__extend__' && Array.isArray(decl)) {
      const ext = decl.map((entry) => {
        if (!isDict(entry)) return entry;
        let changed = false;
        const e2 = Object.fromEntries(
          Object.entries(entry).map(([eid, body]) => {
            const b2 = splitDecl(eid, body);
            if (b2 !== body) changed = true;
            return [eid, b2];
          }),
        );
        return changed ? e2 : entry;
      });
      if (ext.some((e, i) => e !== decl[i])) (out ??= { ...high })[id] = ext as never;
      continue;
    }
    if (id.startsWith('__')) continue;
    const d2 = splitDecl(id, decl);
    if (d2 !== decl) (out ??= { ...high })[id] = d2 as never;
  }
  // the value's IDs are the input's, in its order (a copy is a spread of it)
  return { value: out ?? high, diagnostics, ids: ids(high, idList) };
}

/** An argument dict with several keys. */
function manyKeys(arg: unknown): boolean {
  return isDict(arg) && !oneKey(arg);
}

/**
 * Whether a declaration has an argument of several keys: the one question asked of every state of
 * a tree, and nearly always no. Loops in one function, no call per list or argument: this runs
 * once per state, mostly before the optimiser has the code, where each call costs.
 */
function anyManyKeys(decl: Record<string, unknown>): boolean {
  for (const state in decl) {
    const run = decl[state];
    if (!Array.isArray(run) || state.startsWith('__')) continue;
    for (let i = 0; i < run.length; i++) {
      const arg: unknown = run[i];
      if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) continue;
      let n = 0;
      for (const _k in arg) if (++n > 1) return true;
    }
  }
  return false;
}

/** A dict with at most one key, found without listing its keys. */
function oneKey(arg: Record<string, unknown>): boolean {
  let n = 0;
  for (const _k in arg) if (++n > 1) return false;
  return true;
}
