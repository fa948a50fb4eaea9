/**
 * Python dicts keep every key in insertion order; JavaScript objects list integer-like keys
 * ('139', '7') first, in ascending order, whatever order they came in. Salt users iterate
 * mappings such as `{http: .., 139: .., 140: ..}` and expect the states in document order.
 *
 * Brine keeps plain objects (fast, JSON-shaped) and records the insertion order in a side table
 * only for the few objects where the two orders differ: an integer-like key added after a
 * string key, or after a larger integer-like key. Code that builds mappings Salt users iterate
 * adds keys with `setKey`; code that iterates them reads `keysOf`. Keys added by plain
 * assignment still show up: `keysOf` appends them, in JavaScript's order, when it finds them.
 */

const ORDER = new WeakMap<object, string[]>();

/** A key JavaScript moves to the front of an object: a canonical array index. */
export function isIndexKey(k: string): boolean {
  const n = k.length;
  if (n === 0 || n > 10) return false;
  const c0 = k.charCodeAt(0);
  if (c0 < 48 || c0 > 57 || (c0 === 48 && n > 1)) return false;
  for (let i = 1; i < n; i++) {
    const c = k.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return n < 10 || Number(k) < 4294967295;
}

/** The keys of `o` in the order they were added (for tracked objects) or JavaScript's order. */
export function keysOf(o: object): string[] {
  const order = ORDER.get(o);
  const own = Object.keys(o);
  if (order === undefined) return own;
  return reconcile(o, order, own);
}

/** Sets `o[k] = v`, remembering where `k` went when JavaScript's own order would lose it. */
export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (isIndexKey(k) && !Object.hasOwn(o, k)) {
    const order = ORDER.get(o);
    if (order !== undefined) {
      reconcile(o, order, Object.keys(o)).push(k);
    } else {
      const own = Object.keys(o);
      const last = own[own.length - 1];
      // JavaScript's order already equals insertion order while every key is an index and each
      // new one is larger than the last.
      if (last !== undefined && !(isIndexKey(last) && Number(last) < Number(k))) ORDER.set(o, [...own, k]);
    }
  }
  // `__proto__` from data (YAML, JSON, a minion's grains) is a key like any other, never the prototype
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** Deletes `o[k]`; a tracked order forgets it too. */
export function deleteKey(o: Record<string, unknown>, k: string): void {
  delete o[k];
  const order = ORDER.get(o);
  if (order !== undefined) {
    const i = order.indexOf(k);
    if (i >= 0) order.splice(i, 1);
  }
}

/** Builds a plain object from entries in order, tracking the order when JavaScript's would differ. */
export function objectFromEntries(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) setKey(out, k, v);
  return out;
}

/** Gives `o` the key order `keys` (the keys it was built from, in their source order). */
export function rememberKeyOrder(o: object, keys: readonly string[]): void {
  let sawName = false;
  let maxIndex = -1;
  for (const k of keys) {
    if (!isIndexKey(k)) {
      sawName = true;
      continue;
    }
    const n = Number(k);
    if (sawName || n < maxIndex) {
      ORDER.set(o, [...keys]);
      return;
    }
    maxIndex = n;
  }
}

/** Gives `to` (a copy with the same keys) the tracked order of `from`, if it has one. */
export function copyKeyOrder(from: object, to: object): void {
  const order = ORDER.get(from);
  if (order !== undefined) ORDER.set(to, [...order]);
}

/** Drops keys deleted behind the table's back and appends keys added by plain assignment. */
function reconcile(o: object, order: string[], own: string[]): string[] {
  if (order.length === own.length && order.every((k) => Object.hasOwn(o, k))) return order;
  const seen = new Set(order);
  const kept = order.filter((k) => Object.hasOwn(o, k));
  for (const k of own) if (!seen.has(k)) kept.push(k);
  order.length = 0;
  order.push(...kept);
  return order;
}

const PACKED = '\u0000brine-ordered';

/**
 * A copy of JSON-shaped data for a structured clone (a worker thread): objects whose key order
 * JavaScript would lose travel as `{"\0brine-ordered": [[key, value], ...]}`.
 */
export function packKeyOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(packKeyOrder);
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const o = v as Record<string, unknown>;
  if (ORDER.has(o)) return { [PACKED]: keysOf(o).map((k) => [k, packKeyOrder(o[k])]) };
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = packKeyOrder(o[k]);
  return out;
}

/** packKeyOrder undone: the same data, with each object's key order tracked again. */
export function unpackKeyOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unpackKeyOrder);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const packed = o[PACKED];
  if (Array.isArray(packed)) return objectFromEntries((packed as Array<[string, unknown]>).map(([k, x]) => [k, unpackKeyOrder(x)] as const));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = unpackKeyOrder(o[k]);
  return out;
}
