/** Salt's traverse_dict_and_list: `a:b:0:c` through nested dicts and lists. */
const MISSING = Symbol('missing');

function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function traverse(data: unknown, key: string, dflt: unknown = '', delimiter = ':'): unknown {
  let cur: unknown = data;
  for (const part of key.split(delimiter)) {
    if (isDict(cur)) {
      if (!Object.hasOwn(cur, part)) return dflt;
      cur = cur[part];
    } else if (Array.isArray(cur)) {
      if (/^-?\d+$/.test(part)) {
        const i = Number(part);
        const at = i < 0 ? cur.length + i : i;
        if (at < 0 || at >= cur.length) return dflt;
        cur = cur[at];
      } else {
        // a list step without an index: the first dict in the list holding the key
        const hit = cur.find((x) => isDict(x) && Object.hasOwn(x, part));
        if (hit === undefined) return dflt;
        cur = (hit as Record<string, unknown>)[part];
      }
    } else {
      return dflt;
    }
  }
  return cur === MISSING ? dflt : cur;
}

export { isDict };
