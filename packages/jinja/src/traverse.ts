/** Salt's data helpers: colon-path lookups and recursive dictionary merges. */
import { isDict } from './python.js';
import { cloneJson } from '@brine/core';

const MISSING = Symbol('missing');

/**
 * Looks up `a:b:0:c` in nested dicts and lists. A list step takes a numeric index, or else the
 * first dict in the list that has the key.
 */
export function traverse(data: unknown, key: string, dflt: unknown = null, delimiter = ':'): unknown {
  const v = traverseRaw(data, key, delimiter);
  return v === MISSING ? dflt : v;
}

export function traverseRaw(data: unknown, key: string, delimiter = ':'): unknown {
  let cur: unknown = data;
  for (const part of key.split(delimiter)) {
    if (isDict(cur)) {
      if (!Object.hasOwn(cur, part)) return MISSING;
      cur = cur[part];
    } else if (Array.isArray(cur)) {
      if (/^-?\d+$/.test(part)) {
        const i = Number(part);
        const at = i < 0 ? cur.length + i : i;
        if (at < 0 || at >= cur.length) return MISSING;
        cur = cur[at];
      } else {
        const hit = cur.find((x) => isDict(x) && Object.hasOwn(x, part));
        if (hit === undefined) return MISSING;
        cur = (hit as Record<string, unknown>)[part];
      }
    } else {
      return MISSING;
    }
  }
  return cur;
}

export function isMissing(v: unknown): boolean {
  return v === MISSING;
}

/** Pillar and params are copied per render, so templates cannot change the caller's data. */
export const deepCopy = cloneJson;

/**
 * Recursively merges `upd` into `dest` (in place) and returns `dest`: dicts merge, everything
 * else is replaced; with mergeLists, lists are concatenated (new items only).
 */
export function dictUpdate(dest: Record<string, unknown>, upd: unknown, mergeLists = false): Record<string, unknown> {
  if (!isDict(upd)) return dest;
  for (const k of Object.keys(upd)) {
    const val = upd[k];
    const cur = dest[k];
    if (isDict(cur) && isDict(val)) {
      dest[k] = dictUpdate(cur, val, mergeLists);
    } else if (mergeLists && Array.isArray(cur) && Array.isArray(val)) {
      dest[k] = [...cur, ...val.filter((x) => !cur.some((y) => JSON.stringify(y) === JSON.stringify(x)))];
    } else {
      dest[k] = isDict(val) ? deepCopy(val) : val;
    }
  }
  return dest;
}

/** slsutil.merge: `smart`/`recurse` merge recursively, `overwrite` replaces top keys, `list` merges lists too. */
export function mergeWithStrategy(a: unknown, b: unknown, strategy = 'smart', mergeLists = false): unknown {
  if (!isDict(a) || !isDict(b)) return b ?? a;
  const dest = deepCopy(a);
  switch (strategy) {
    case 'overwrite':
      return Object.assign(dest, deepCopy(b));
    case 'list':
      return dictUpdate(dest, b, true);
    default:
      return dictUpdate(dest, b, mergeLists);
  }
}
