/** Small readers of plain JSON-shaped data, shared by every package. */

import { copyKeyOrder, keysOf } from './key-order.js';

/** A plain dictionary (not a list, not null). */
export function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A deep copy of JSON-shaped data: plain dicts and lists are copied, everything else is shared. */
export function cloneJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneJson) as T;
  const proto = v !== null && typeof v === 'object' ? Object.getPrototypeOf(v) : undefined;
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    const keys = keysOf(v as object);
    for (const k of keys) out[k] = cloneJson((v as Record<string, unknown>)[k]);
    copyKeyOrder(v as object, out);
    return out as T;
  }
  return v;
}
