/**
 * The params dictionary templates see in `brine local`: a dictionary like any other, except that
 * `params['k']` / `params.k` for a key that is not there fails at once, naming the key (the
 * template error adds file and line). `params.get('k', default)` is how a template reads an
 * optional parameter.
 */
import { PY_OBJECT, type PyObjectHooks } from '@brine/jinja';

function isPlainDict(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function quoted(key: string): string {
  return `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function strictDict(data: Record<string, unknown>, expression: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) out[k] = strictValue(v, `${expression}[${quoted(k)}]`);
  const hooks: PyObjectHooks = {
    lookup(key, call, next) {
      const v = next();
      if (!call && v === undefined && typeof key === 'string' && !Object.hasOwn(out, key)) {
        throw new Error(`${expression} has no key ${quoted(key)} (use ${expression}.get(${quoted(key)}, default) for an optional parameter)`);
      }
      return v;
    },
  };
  // Not enumerable: the dictionary prints, copies and serialises like plain data.
  Object.defineProperty(out, PY_OBJECT, { value: hooks, enumerable: false });
  return out;
}

function strictValue(v: unknown, expression: string): unknown {
  if (isPlainDict(v)) return strictDict(v, expression);
  if (Array.isArray(v)) return v.map((x, i) => strictValue(x, `${expression}[${i}]`));
  return v;
}

/** A copy of `data` whose dictionaries (at every depth) fail on missing keys. */
export function strictParams(data: Record<string, unknown>): Record<string, unknown> {
  return strictDict(data, 'params');
}
