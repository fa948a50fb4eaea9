import type { Pillar } from '@brine/core';

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function deepCopy<T>(v: T): T {
  return v === null || typeof v !== 'object' ? v : (structuredClone(v) as T);
}

/** Sets a key as data: a `__proto__` name is a key, never the prototype. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/** Recursive merge into a copy of `under`: dictionaries merge, anything else from `over` wins. */
export function deepMerge(under: unknown, over: unknown): unknown {
  if (!isPlainObject(under) || !isPlainObject(over)) return deepCopy(over);
  const out: Record<string, unknown> = deepCopy(under);
  for (const [k, v] of Object.entries(over)) setOwn(out, k, Object.hasOwn(out, k) ? deepMerge(out[k], v) : deepCopy(v));
  return out;
}

/**
 * Nests dotted names: `[['apache', {...}], ['apache.port', 80]]` -> `{apache: {..., port: 80}}`.
 * Shorter names go first so a more specific name lands inside (and wins over) a dictionary bound
 * to its parent. A name under a non-dictionary is reported through `clash` and left out.
 */
export function nestNames(entries: Array<[string, unknown]>, clash: (name: string, inner: string) => void): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const sorted = entries.map(([name, value], i) => ({ name, value, i, parts: name.split('.') })).sort((a, b) => a.parts.length - b.parts.length || a.i - b.i);
  for (const { name, value, parts } of sorted) {
    let cur = out;
    let ok = true;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = Object.hasOwn(cur, parts[i]) ? cur[parts[i]] : undefined;
      if (next === undefined) setOwn(cur, parts[i], {});
      else if (!isPlainObject(next)) {
        clash(parts.slice(0, i + 1).join('.'), name);
        ok = false;
        break;
      }
      cur = cur[parts[i]] as Record<string, unknown>;
    }
    if (!ok) continue;
    const last = parts[parts.length - 1];
    setOwn(cur, last, Object.hasOwn(cur, last) ? deepMerge(cur[last], value) : deepCopy(value));
  }
  return out;
}

/**
 * The documented merge order with classic pillar: classic pillar (pillar SLS from the pillar top
 * file) first, bindings on top, merged recursively. A bound name therefore always has the value
 * `brine pillar explain` shows; keys only classic pillar has are kept.
 */
export function mergeWithClassicPillar(classic: Pillar, bound: Pillar): Pillar {
  return deepMerge(classic, bound) as Pillar;
}
