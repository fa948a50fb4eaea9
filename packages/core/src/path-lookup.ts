/** Salt's traverse_dict_and_list: `a:b:0:c` through nested dicts and lists. */

/** What `lookupPath` returns when the path leads nowhere (a default may legitimately be null). */
export const NOT_FOUND: unique symbol = Symbol('not found');

/**
 * Looks up `a:b:0:c` in nested dicts and lists. A list step takes a numeric index (negative
 * counts from the end), or else the first dict in the list that has the key.
 */
function isMapping(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function lookupPath(data: unknown, key: string, delimiter = ':'): unknown {
  let cur: unknown = data;
  for (const part of key.split(delimiter)) {
    if (isMapping(cur)) {
      if (!Object.hasOwn(cur, part)) return NOT_FOUND;
      cur = cur[part];
    } else if (Array.isArray(cur)) {
      if (/^-?\d+$/.test(part)) {
        const i = Number(part);
        const at = i < 0 ? cur.length + i : i;
        if (at < 0 || at >= cur.length) return NOT_FOUND;
        cur = cur[at];
      } else {
        const hit = cur.find((x) => isMapping(x) && Object.hasOwn(x, part));
        if (hit === undefined) return NOT_FOUND;
        cur = (hit as Record<string, unknown>)[part];
      }
    } else {
      return NOT_FOUND;
    }
  }
  return cur;
}
