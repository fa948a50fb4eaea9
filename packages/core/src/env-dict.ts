/**
 * Salt's `env` state argument: a dict, or a list of one-key dicts or `KEY=VALUE` strings. Values
 * become strings as Python prints them (True/False, None as empty). `'invalid'` for any other
 * shape; undefined when there is none.
 */
export function envDict(env: unknown): Record<string, string> | undefined | 'invalid' {
  if (env === undefined || env === null) return undefined;
  const out: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    out[k] = typeof v === 'boolean' ? (v ? 'True' : 'False') : v === null ? '' : String(v);
  };
  if (Array.isArray(env)) {
    for (const item of env) {
      if (typeof item === 'string') {
        const i = item.indexOf('=');
        if (i < 0) return 'invalid';
        put(item.slice(0, i), item.slice(i + 1));
      } else if (item && typeof item === 'object' && !Array.isArray(item)) {
        for (const [k, v] of Object.entries(item)) put(k, v);
      } else return 'invalid';
    }
    return out;
  }
  if (typeof env === 'object') {
    for (const [k, v] of Object.entries(env as Record<string, unknown>)) put(k, v);
    return out;
  }
  return 'invalid';
}
