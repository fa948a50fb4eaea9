/** Small readers of plain JSON-shaped data, shared by every package. */

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
    for (const k of Object.keys(v as object)) out[k] = cloneJson((v as Record<string, unknown>)[k]);
    return out as T;
  }
  return v;
}
