/** Small readers for state arguments as YAML gives them. */

/** Salt's env: a dict, or a list of one-key dicts (or KEY=VALUE strings); values as strings. */
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

export function asString(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return String(v);
}

/** A list argument that may be given as a single value or a comma-separated string. */
export function asList(v: unknown): string[] {
  if (v === undefined || v === null || v === '') return [];
  if (Array.isArray(v)) return v.map((x) => String(x));
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  return [String(v)];
}

export function asBool(v: unknown, fallback = false): boolean {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return ['true', 'yes', '1', 'on'].includes(v.toLowerCase());
  return Boolean(v);
}

export function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
