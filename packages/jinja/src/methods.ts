/**
 * The methods of Python's dict, list and str that Jinja lets templates call
 * (`d.items()`, `l.append(x)`, `s.startswith('a')`, ...). Looked up by the template runtime.
 */
import { pyHooks } from './py-object.js';
import { isDict, pyKey, splitArgs, str, strFormat, truthy, tuple } from './python.js';
import { copyKeyOrder, deleteKey, keysOf, setKey } from '@brine/core';
import { methodTable, ownMember } from './sandbox.js';

type Method = (self: any, ...args: any[]) => unknown;

function keyError(key: unknown): Error {
  return new Error(`KeyError: ${String(key)}`);
}

function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

function stripChars(s: string, chars: unknown, left: boolean, right: boolean): string {
  if (chars === undefined || chars === null) {
    if (left && right) return s.trim();
    return left ? s.trimStart() : s.trimEnd();
  }
  const set = String(chars);
  let a = 0;
  let b = s.length;
  if (left) while (a < b && set.includes(s[a])) a++;
  if (right) while (b > a && set.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

function split(s: string, sep: unknown, maxsplit: unknown): string[] {
  const max = maxsplit === undefined || maxsplit === null ? -1 : Number(maxsplit);
  if (sep === undefined || sep === null) {
    const parts: string[] = [];
    let rest = s.trimStart();
    while (rest !== '') {
      if (max >= 0 && parts.length === max) {
        parts.push(rest);
        break;
      }
      const m = /\s+/.exec(rest);
      if (!m) {
        parts.push(rest);
        break;
      }
      parts.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    return parts;
  }
  const d = String(sep);
  if (d === '') throw new Error('ValueError: empty separator');
  const all = s.split(d);
  if (max < 0 || all.length <= max + 1) return all;
  return [...all.slice(0, max), all.slice(max).join(d)];
}

function rsplit(s: string, sep: unknown, maxsplit: unknown): string[] {
  const max = maxsplit === undefined || maxsplit === null ? -1 : Number(maxsplit);
  if (max < 0 || sep === undefined || sep === null) return split(s, sep, max < 0 ? undefined : max);
  const d = String(sep);
  const all = s.split(d);
  if (all.length <= max + 1) return all;
  return [all.slice(0, all.length - max).join(d), ...all.slice(all.length - max)];
}

function affix(s: string, arg: unknown, test: (s: string, a: string) => boolean): boolean {
  if (Array.isArray(arg)) return arg.some((a) => test(s, String(a)));
  return test(s, String(arg));
}

function titleCase(s: string): string {
  return s.replace(/[A-Za-z]+/g, (w) => w[0].toUpperCase() + w.slice(1).toLowerCase());
}

export const STRING_METHODS: Record<string, Method> = methodTable({
  upper: (s: string) => s.toUpperCase(),
  lower: (s: string) => s.toLowerCase(),
  casefold: (s: string) => s.toLowerCase(),
  strip: (s: string, chars?: unknown) => stripChars(s, chars, true, true),
  lstrip: (s: string, chars?: unknown) => stripChars(s, chars, true, false),
  rstrip: (s: string, chars?: unknown) => stripChars(s, chars, false, true),
  split: (s: string, ...raw: unknown[]) => {
    const { args, kwargs } = splitArgs(raw);
    return split(s, kwargs.sep ?? args[0], kwargs.maxsplit ?? args[1]);
  },
  rsplit: (s: string, ...raw: unknown[]) => {
    const { args, kwargs } = splitArgs(raw);
    return rsplit(s, kwargs.sep ?? args[0], kwargs.maxsplit ?? args[1]);
  },
  splitlines: (s: string) => {
    const lines = s.split(/\r\n|\r|\n/);
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  },
  startswith: (s: string, p: unknown) => affix(s, p, (x, a) => x.startsWith(a)),
  endswith: (s: string, p: unknown) => affix(s, p, (x, a) => x.endsWith(a)),
  replace: (s: string, old: unknown, neu: unknown, count?: unknown) => {
    const parts = s.split(String(old));
    if (count === undefined || Number(count) < 0) return parts.join(String(neu));
    const n = Number(count);
    return parts.slice(0, n + 1).join(String(neu)) + (parts.length > n + 1 ? String(old) + parts.slice(n + 1).join(String(old)) : '');
  },
  join: (s: string, items: unknown) => (Array.isArray(items) ? items : Object.keys(items as object)).map(str).join(s),
  format: (s: string, ...args: unknown[]) => strFormat(s, args),
  find: (s: string, sub: unknown, start?: number) => s.indexOf(String(sub), start ?? 0),
  rfind: (s: string, sub: unknown) => s.lastIndexOf(String(sub)),
  index: (s: string, sub: unknown, start?: number) => {
    const i = s.indexOf(String(sub), start ?? 0);
    if (i < 0) throw new Error('ValueError: substring not found');
    return i;
  },
  count: (s: string, sub: unknown) => (String(sub) === '' ? s.length + 1 : s.split(String(sub)).length - 1),
  title: (s: string) => titleCase(s),
  capitalize: (s: string) => (s === '' ? s : s[0].toUpperCase() + s.slice(1).toLowerCase()),
  swapcase: (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
  isdigit: (s: string) => /^\d+$/.test(s),
  isnumeric: (s: string) => /^\d+$/.test(s),
  isdecimal: (s: string) => /^\d+$/.test(s),
  isalpha: (s: string) => /^[A-Za-z]+$/.test(s),
  isalnum: (s: string) => /^[A-Za-z0-9]+$/.test(s),
  isspace: (s: string) => /^\s+$/.test(s),
  islower: (s: string) => /[a-z]/.test(s) && s === s.toLowerCase(),
  isupper: (s: string) => /[A-Z]/.test(s) && s === s.toUpperCase(),
  zfill: (s: string, w: number) => {
    const sign = /^[-+]/.test(s) ? s[0] : '';
    const body = sign ? s.slice(1) : s;
    return sign + body.padStart(Math.max(0, w - sign.length), '0');
  },
  ljust: (s: string, w: number, f = ' ') => s.padEnd(w, f),
  rjust: (s: string, w: number, f = ' ') => s.padStart(w, f),
  center: (s: string, w: number, f = ' ') => {
    const n = Math.max(0, w - s.length);
    const left = Math.floor(n / 2) + (n % 2 && w % 2 ? 1 : 0);
    return f.repeat(left) + s + f.repeat(n - left);
  },
  partition: (s: string, sep: unknown) => {
    const i = s.indexOf(String(sep));
    return i < 0 ? [s, '', ''] : [s.slice(0, i), String(sep), s.slice(i + String(sep).length)];
  },
  rpartition: (s: string, sep: unknown) => {
    const i = s.lastIndexOf(String(sep));
    return i < 0 ? ['', '', s] : [s.slice(0, i), String(sep), s.slice(i + String(sep).length)];
  },
  encode: (s: string) => s,
  decode: (s: string) => s,
});

export const LIST_METHODS: Record<string, Method> = methodTable({
  append: (l: unknown[], x: unknown) => {
    l.push(x);
    return null;
  },
  extend: (l: unknown[], xs: unknown) => {
    for (const x of Array.isArray(xs) ? xs : isDict(xs) ? Object.keys(xs) : [...String(xs)]) l.push(x);
    return null;
  },
  insert: (l: unknown[], i: number, x: unknown) => {
    l.splice(i < 0 ? Math.max(0, l.length + i) : i, 0, x);
    return null;
  },
  pop: (l: unknown[], i?: number) => {
    if (l.length === 0) throw new Error('IndexError: pop from empty list');
    if (i === undefined) return l.pop();
    const at = i < 0 ? l.length + i : i;
    if (at < 0 || at >= l.length) throw new Error('IndexError: pop index out of range');
    return l.splice(at, 1)[0];
  },
  remove: (l: unknown[], x: unknown) => {
    const i = l.findIndex((y) => pyEquals(y, x));
    if (i < 0) throw new Error('ValueError: list.remove(x): x not in list');
    l.splice(i, 1);
    return null;
  },
  index: (l: unknown[], x: unknown) => {
    const i = l.findIndex((y) => pyEquals(y, x));
    if (i < 0) throw new Error(`ValueError: ${str(x)} is not in list`);
    return i;
  },
  count: (l: unknown[], x: unknown) => l.filter((y) => pyEquals(y, x)).length,
  sort: (l: unknown[], ...raw: unknown[]) => {
    const { kwargs } = splitArgs(raw);
    l.sort((a: any, b: any) => (a < b ? -1 : a > b ? 1 : 0));
    if (truthy(kwargs.reverse)) l.reverse();
    return null;
  },
  reverse: (l: unknown[]) => {
    l.reverse();
    return null;
  },
  copy: (l: unknown[]) => [...l],
  clear: (l: unknown[]) => {
    l.length = 0;
    return null;
  },
});

function update(d: Record<string, unknown>, ...raw: unknown[]): null {
  const { args, kwargs } = splitArgs(raw);
  const other = args[0];
  if (Array.isArray(other)) {
    for (const pair of other) setKey(d, String((pair as unknown[])[0]), (pair as unknown[])[1]);
  } else if (isDict(other)) {
    for (const k of keysOf(other)) setKey(d, k, other[k]);
  } else if (other !== undefined && other !== null) {
    Object.assign(d, other);
  }
  for (const k of Object.keys(kwargs)) setKey(d, k, kwargs[k]);
  return null;
}

export const DICT_METHODS: Record<string, Method> = methodTable({
  items: (d: Record<string, unknown>) => keysOf(d).map((k) => tuple([k, d[k]])),
  keys: (d: Record<string, unknown>) => keysOf(d),
  values: (d: Record<string, unknown>) => keysOf(d).map((k) => d[k]),
  get: (d: Record<string, unknown>, key: unknown, def: unknown = null) => {
    const k = pyKey(key);
    return Object.hasOwn(d, k) && d[k] !== undefined ? d[k] : def;
  },
  update,
  setdefault: (d: Record<string, unknown>, key: unknown, def: unknown = null) => {
    const k = pyKey(key);
    if (!Object.hasOwn(d, k)) setKey(d, k, def);
    return d[k];
  },
  pop: (d: Record<string, unknown>, key: unknown, ...rest: unknown[]) => {
    const k = pyKey(key);
    if (Object.hasOwn(d, k)) {
      const v = d[k];
      deleteKey(d, k);
      return v;
    }
    if (rest.length > 0) return rest[0];
    throw keyError(key);
  },
  popitem: (d: Record<string, unknown>) => {
    const keys = keysOf(d);
    if (keys.length === 0) throw keyError('popitem(): dictionary is empty');
    const k = keys[keys.length - 1];
    const v = d[k];
    deleteKey(d, k);
    return [k, v];
  },
  copy: (d: Record<string, unknown>) => {
    const out = { ...d };
    copyKeyOrder(d, out);
    return out;
  },
  clear: (d: Record<string, unknown>) => {
    for (const k of Object.keys(d)) deleteKey(d, k);
    return null;
  },
  has_key: (d: Record<string, unknown>, key: unknown) => Object.hasOwn(d, pyKey(key)),
});
DICT_METHODS.iteritems = DICT_METHODS.items;
DICT_METHODS.iterkeys = DICT_METHODS.keys;
DICT_METHODS.itervalues = DICT_METHODS.values;

function bound(m: Method, self: unknown): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => m(self, ...args);
}

function pythonMethod(obj: unknown, key: string): ((...args: unknown[]) => unknown) | undefined {
  if (typeof obj === 'string' || obj instanceof String) {
    const m = STRING_METHODS[key];
    return m && bound(m, String(obj));
  }
  if (Array.isArray(obj)) {
    const m = LIST_METHODS[key];
    return m && bound(m, obj);
  }
  if (isDict(obj)) {
    const m = DICT_METHODS[key];
    return m && bound(m, obj);
  }
  return undefined;
}

function hasOwn(obj: object, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/**
 * `a.b` / `a['b']` outside a call: a key of a dict wins, then a Python method, then an item or
 * own attribute (never what a JavaScript prototype holds: see sandbox.ts).
 */
export function memberLookup(obj: unknown, key: unknown): unknown {
  if (obj === undefined || obj === null) return undefined;
  const hooks = pyHooks(obj);
  if (hooks?.lookup) return hooks.lookup(key, false, () => plainMemberLookup(obj, key));
  return plainMemberLookup(obj, key);
}

function plainMemberLookup(obj: unknown, key: unknown): unknown {
  if (typeof key === 'number' && key < 0 && (Array.isArray(obj) || typeof obj === 'string')) {
    return (obj as unknown[])[(obj as unknown[]).length + key];
  }
  if (typeof key === 'string') {
    if (isDict(obj) && hasOwn(obj, key)) return obj[key];
    const m = pythonMethod(obj, key);
    if (m) return m;
  } else if (isDict(obj)) {
    // d[True], d[1]: the key as a dict literal would have stored it.
    const k = pyKey(key);
    return hasOwn(obj, k) ? obj[k] : undefined;
  }
  return ownMember(obj, key);
}

/**
 * `a.b(...)`: like Jinja, a method wins over a key of the same name (`d.items()` works on a
 * dict with an `items` key) unless the key holds a function (`salt.pillar.get(...)`).
 */
export function methodLookup(obj: unknown, key: unknown): unknown {
  if (obj === undefined || obj === null) return undefined;
  const hooks = pyHooks(obj);
  if (hooks?.lookup) return hooks.lookup(key, true, () => plainMethodLookup(obj, key));
  return plainMethodLookup(obj, key);
}

function plainMethodLookup(obj: unknown, key: unknown): unknown {
  if (typeof key === 'string') {
    if (isDict(obj) && hasOwn(obj, key) && typeof obj[key] === 'function') return obj[key];
    const m = pythonMethod(obj, key);
    if (m) return m;
  }
  return plainMemberLookup(obj, key);
}
