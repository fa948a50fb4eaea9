/** Salt's data helpers: colon-path lookups and recursive dictionary merges. */
import { isDict } from './python.js';
import { cloneJson, keysOf, lookupPath, NOT_FOUND, setKey } from '@brine/core';

/** Looks up `a:b:0:c` in nested dicts and lists (see @brine/core lookupPath). */
export function traverse(data: unknown, key: string, dflt: unknown = null, delimiter = ':'): unknown {
  const v = lookupPath(data, key, delimiter);
  return v === NOT_FOUND ? dflt : v;
}

export const traverseRaw = lookupPath;

export function isMissing(v: unknown): boolean {
  return v === NOT_FOUND;
}

/** Pillar and params are copied per render, so templates cannot change the caller's data. */
export const deepCopy = cloneJson;

/**
 * Recursively merges `upd` into `dest` (in place) and returns `dest`: dicts merge, everything
 * else is replaced; with mergeLists, lists are concatenated (new items only).
 */
export function dictUpdate(dest: Record<string, unknown>, upd: unknown, mergeLists = false): Record<string, unknown> {
  if (!isDict(upd)) return dest;
  for (const k of keysOf(upd)) {
    const val = upd[k];
    const cur = Object.hasOwn(dest, k) ? dest[k] : undefined;
    if (isDict(cur) && isDict(val)) {
      setKey(dest, k, dictUpdate(cur, val, mergeLists));
    } else if (mergeLists && Array.isArray(cur) && Array.isArray(val)) {
      setKey(dest, k, [...cur, ...val.filter((x) => !cur.some((y) => JSON.stringify(y) === JSON.stringify(x)))]);
    } else {
      setKey(dest, k, isDict(val) ? deepCopy(val) : val);
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
      for (const k of keysOf(b)) setKey(dest, k, deepCopy(b[k]));
      return dest;
    case 'list':
      return dictUpdate(dest, b, true);
    default:
      return dictUpdate(dest, b, mergeLists);
  }
}
