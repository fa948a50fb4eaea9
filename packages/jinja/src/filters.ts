/**
 * Jinja's and Salt's filters and tests with their Python signatures (keyword arguments
 * included), registered on our environments in place of nunjucks' JavaScript-flavoured ones.
 */
import { createHash } from 'node:crypto';
import { loadYaml } from './yaml-load.js';
import { parsedOnce } from './parse-cache.js';
import { memberLookup } from './methods.js';
import { bindArgs, isDict, isStringLike, percentFormat, pyEq, pyIn, pyLess, repr, tuple, splitArgs, str, strFormat, truthy } from './python.js';
import { pyJson, toYaml, yamlDquote, yamlEncode, yamlSquote } from './serialize.js';
import { traverse } from './traverse.js';
import { SALT_FILTERS } from './filters-salt.js';
import { keysOf } from '@brine/core';

type Filter = (this: any, value: any, ...args: any[]) => unknown;

/** Python regex syntax to JavaScript's (named groups, inline flags at the start). */
export function pyRegex(pattern: string, flags = ''): RegExp {
  let p = pattern.replace(/\(\?P<(\w+)>/g, '(?<$1>').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
  const inline = /^\(\?([aiLmsux]+)\)/.exec(p);
  if (inline) {
    p = p.slice(inline[0].length);
    for (const f of inline[1]) if ('ims'.includes(f) && !flags.includes(f)) flags += f;
  }
  p = p.replace(/\\A/g, '^').replace(/\\Z/g, '$');
  return new RegExp(p, flags);
}

function pyReplacement(repl: string): string {
  return repl.replace(/\$/g, '$$$$').replace(/\\(\d+)|\\g<(\w+)>/g, (_m, n: string, g: string) => (n ? `$${n}` : /^\d+$/.test(g) ? `$${g}` : `$<${g}>`));
}

function attrGetter(attribute: unknown): (v: unknown) => unknown {
  const parts = String(attribute).split('.');
  return (v) => parts.reduce<unknown>((o, p) => memberLookup(o, /^\d+$/.test(p) && Array.isArray(o) ? Number(p) : p), v);
}

function toList(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  if (isStringLike(v)) return [...String(v)];
  if (isDict(v)) return keysOf(v);
  if (typeof v === 'object' && Symbol.iterator in (v as object)) return [...(v as Iterable<unknown>)];
  return [v];
}

function compare(a: any, b: any, caseSensitive: boolean): number {
  if (!caseSensitive) {
    if (typeof a === 'string') a = a.toLowerCase();
    if (typeof b === 'string') b = b.toLowerCase();
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function testCall(ctx: any, name: string, value: unknown, args: unknown[]): boolean {
  const test = ctx.env.getTest(name);
  if (!test) throw new Error(`no test named '${name}'`);
  return test.call(ctx, value, ...args) === true;
}

function selectImpl(ctx: any, seq: unknown, raw: unknown[], want: boolean, attr: boolean): unknown[] {
  const { args } = splitArgs(raw);
  const get = attr ? attrGetter(args.shift()) : (v: unknown) => v;
  const name = args.shift();
  return toList(seq).filter((item) => {
    const v = get(item);
    const ok = name === undefined ? truthy(v) : testCall(ctx, String(name), v, args);
    return ok === want;
  });
}

function toBool(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (isStringLike(v)) return ['yes', '1', 'true'].includes(String(v).toLowerCase());
  if (typeof v === 'number') return v > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return false;
}

function indent(s: unknown, raw: unknown[]): string {
  const a = bindArgs(raw, ['width', 'first', 'blank'], { width: 4, first: false, blank: false });
  const pad = typeof a.width === 'string' ? a.width : ' '.repeat(Number(a.width));
  const lines = str(s).split('\n');
  return lines
    .map((line, i) => {
      if (i === 0 && !truthy(a.first)) return line;
      if (line === '' && !truthy(a.blank)) return line;
      return pad + line;
    })
    .join('\n');
}

function pyRound(v: number, precision: number, method: string): number {
  const f = 10 ** precision;
  if (method === 'ceil') return Math.ceil(v * f) / f;
  if (method === 'floor') return Math.floor(v * f) / f;
  // Python's round(): the exact binary value rounded, ties to even (round(2.5) is 2, round(2.55, 1) is 2.5).
  if (!Number.isFinite(v) || precision > 100) return v;
  if (precision < 0) return Math.round(v * f) / f;
  const exact = v.toFixed(Math.min(100, precision + 60));
  const cut = exact.length - (Math.min(100, precision + 60) - precision);
  if (/^50*$/.test(exact.slice(cut))) {
    // An exact tie: keep the even last digit.
    const kept = exact.slice(0, cut).replace(/\.$/, '');
    const last = Number(kept[kept.length - 1]);
    if (last % 2 === 0) return Number(kept);
  }
  return Number(v.toFixed(precision));
}

function regexSearch(value: unknown, raw: unknown[], anchored: boolean): unknown {
  const a = bindArgs(raw, ['regex', 'ignorecase', 'multiline'], { ignorecase: false, multiline: false });
  const re = pyRegex(String(a.regex), (truthy(a.ignorecase) ? 'i' : '') + (truthy(a.multiline) ? 'm' : ''));
  const s = str(value);
  const m = re.exec(s);
  if (!m || (anchored && m.index !== 0)) return null;
  return tuple(m.slice(1).map((g) => (g === undefined ? null : g)));
}

function unique(seq: unknown): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const v of toList(seq)) {
    const k = typeof v === 'object' ? JSON.stringify(v) : typeof v + ':' + String(v);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

function flatten(seq: unknown, levels: number | null, preserveNulls: boolean): unknown[] {
  const out: unknown[] = [];
  for (const v of toList(seq)) {
    if (Array.isArray(v) && (levels === null || levels > 0)) out.push(...flatten(v, levels === null ? null : levels - 1, preserveNulls));
    else if (v !== null || preserveNulls) out.push(v);
  }
  return out;
}

function noArgs(name: string, raw: unknown[]): unknown[] {
  if (raw.length > 0) throw new TypeError(`${name}() takes 1 positional argument (Salt's filter has no options)`);
  return raw;
}

function minMax(seq: unknown, raw: unknown[], sign: 1 | -1): unknown {
  const a = bindArgs(raw, ['case_sensitive', 'attribute'], { case_sensitive: true });
  const get = a.attribute === undefined ? (v: unknown) => v : attrGetter(a.attribute);
  const list = toList(seq);
  if (list.length === 0) return undefined;
  return list.reduce((best, v) => (compare(get(v), get(best), truthy(a.case_sensitive)) * sign < 0 ? v : best));
}

export const FILTERS: Record<string, Filter> = {
  default(value, ...raw) {
    const a = bindArgs(raw, ['default_value', 'boolean'], { default_value: '', boolean: false });
    if (value === undefined) return a.default_value;
    if (truthy(a.boolean) && !truthy(value)) return a.default_value;
    return value;
  },
  join(value, ...raw) {
    const a = bindArgs(raw, ['d', 'attribute'], { d: '' });
    const get = a.attribute === undefined ? (v: unknown) => v : attrGetter(a.attribute);
    return toList(value)
      .map((v) => str(get(v)))
      .join(str(a.d));
  },
  upper: (v) => str(v).toUpperCase(),
  lower: (v) => str(v).toLowerCase(),
  title: (v) => str(v).replace(/[A-Za-z]+/g, (w) => w[0].toUpperCase() + w.slice(1).toLowerCase()),
  capitalize: (v) => {
    const s = str(v);
    return s === '' ? s : s[0].toUpperCase() + s.slice(1).toLowerCase();
  },
  trim(v, chars?: unknown) {
    const s = str(v);
    if (chars === undefined || chars === null) return s.trim();
    let a = 0;
    let b = s.length;
    const set = String(chars);
    while (a < b && set.includes(s[a])) a++;
    while (b > a && set.includes(s[b - 1])) b--;
    return s.slice(a, b);
  },
  replace(v, old, neu, count?: unknown) {
    const parts = str(v).split(str(old));
    if (count === undefined || count === null) return parts.join(str(neu));
    const n = Number(count);
    return parts.slice(0, n + 1).join(str(neu)) + (parts.length > n + 1 ? str(old) + parts.slice(n + 1).join(str(old)) : '');
  },
  tojson: (v, ...raw) => {
    const a = bindArgs(raw, ['indent'], { indent: null, sort_keys: false });
    return pyJson(v, a.indent === null ? null : Number(a.indent), truthy(a.sort_keys))
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027');
  },
  json: (v, ...raw) => {
    const a = bindArgs(raw, ['sort_keys', 'indent'], { sort_keys: true, indent: null });
    return pyJson(v, a.indent === null ? null : Number(a.indent), truthy(a.sort_keys));
  },
  yaml: (v, ...raw) => {
    const flow = bindArgs(raw, ['flow_style'], { flow_style: true }).flow_style;
    return toYaml(v, flow === null || flow === undefined ? null : truthy(flow));
  },
  yaml_dquote: (v) => yamlDquote(v),
  yaml_squote: (v) => yamlSquote(v),
  yaml_encode: (v) => yamlEncode(v),
  load_yaml: (v) => {
    const text = str(v);
    return parsedOnce('yaml', text, () => {
      const res = loadYaml(text);
      if (res.error) throw new Error(`load_yaml: ${res.error.message}`);
      return res.value;
    });
  },
  load_json: (v) => {
    const text = str(v);
    return parsedOnce('json', text, () => JSON.parse(text));
  },
  dictsort(value, ...raw) {
    const a = bindArgs(raw, ['case_sensitive', 'by', 'reverse'], { case_sensitive: false, by: 'key', reverse: false });
    const idx = a.by === 'value' ? 1 : 0;
    const pairs = Object.keys(value ?? {}).map((k) => tuple([k, value[k]]));
    pairs.sort((x, y) => compare(x[idx], y[idx], truthy(a.case_sensitive)));
    if (truthy(a.reverse)) pairs.reverse();
    return pairs;
  },
  items: (value) => (value ? keysOf(value).map((k) => tuple([k, value[k]])) : []),
  length: (v) => (v === undefined || v === null ? 0 : isDict(v) ? Object.keys(v).length : isStringLike(v) ? String(v).length : toList(v).length),
  traverse(value, ...raw) {
    const a = bindArgs(raw, ['key', 'default', 'delimiter'], { default: null, delimiter: ':' });
    return traverse(value, String(a.key), a.default, String(a.delimiter));
  },
  to_bool: (v) => toBool(v),
  regex_replace(value, ...raw) {
    const a = bindArgs(raw, ['regex', 'replace', 'ignorecase', 'multiline'], { replace: '', ignorecase: false, multiline: false });
    const flags = 'g' + (truthy(a.ignorecase) ? 'i' : '') + (truthy(a.multiline) ? 'm' : '');
    return str(value).replace(pyRegex(String(a.regex), flags), pyReplacement(str(a.replace)));
  },
  regex_search: (value, ...raw) => regexSearch(value, raw, false),
  regex_match: (value, ...raw) => regexSearch(value, raw, true),
  regex_escape: (v) => str(v).replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'),
  select(value, ...raw) {
    return selectImpl(this, value, raw, true, false);
  },
  reject(value, ...raw) {
    return selectImpl(this, value, raw, false, false);
  },
  selectattr(value, ...raw) {
    return selectImpl(this, value, raw, true, true);
  },
  rejectattr(value, ...raw) {
    return selectImpl(this, value, raw, false, true);
  },
  map(value, ...raw) {
    const { args, kwargs } = splitArgs(raw);
    if (kwargs.attribute !== undefined) {
      const get = attrGetter(kwargs.attribute);
      return toList(value).map((v) => {
        const r = get(v);
        return r === undefined && 'default' in kwargs ? kwargs.default : r;
      });
    }
    const name = String(args.shift());
    const filter = this.env.getFilter(name);
    const rest = Object.keys(kwargs).length ? [...args, { ...kwargs, __keywords: true }] : args;
    return toList(value).map((v) => filter.call(this, v, ...rest));
  },
  indent: (v, ...raw) => indent(v, raw),
  unique: (v, ...raw) => (noArgs('unique', raw), unique(v)),
  sort(value, ...raw) {
    const a = bindArgs(raw, ['reverse', 'case_sensitive', 'attribute'], { reverse: false, case_sensitive: false });
    const get = a.attribute === undefined ? (v: unknown) => v : attrGetter(a.attribute);
    const out = [...toList(value)].sort((x, y) => compare(get(x), get(y), truthy(a.case_sensitive)));
    if (truthy(a.reverse)) out.reverse();
    return out;
  },
  reverse: (v) => (isStringLike(v) ? [...String(v)].reverse().join('') : [...toList(v)].reverse()),
  first: (v) => toList(v)[0],
  last: (v) => {
    const l = toList(v);
    return l[l.length - 1];
  },
  // Salt replaces Jinja's min, max and unique with one-argument versions.
  min: (v, ...raw) => minMax(v, noArgs('lst_min', raw), 1),
  max: (v, ...raw) => minMax(v, noArgs('lst_max', raw), -1),
  sum(value, ...raw) {
    const a = bindArgs(raw, ['attribute', 'start'], { start: 0 });
    const get = a.attribute === undefined ? (v: unknown) => v : attrGetter(a.attribute);
    return toList(value).reduce((acc: any, v) => acc + (get(v) as any), a.start);
  },
  int(value, ...raw) {
    const a = bindArgs(raw, ['default', 'base'], { default: 0, base: 10 });
    if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : a.default;
    if (typeof value === 'boolean') return value ? 1 : 0;
    const s = str(value).trim().replace(/_/g, '');
    const base = Number(a.base);
    let n: number;
    if (base === 10) n = /^[-+]?\d+(\.\d*)?$/.test(s) ? Math.trunc(Number(s)) : NaN;
    else n = parseInt(s.replace(/^0[xob]/i, ''), base);
    return Number.isNaN(n) ? a.default : n;
  },
  float(value, ...raw) {
    const a = bindArgs(raw, ['default'], { default: 0.0 });
    const n = typeof value === 'number' ? value : Number(str(value).trim());
    return Number.isNaN(n) || value === null || value === undefined || str(value).trim() === '' ? a.default : n;
  },
  abs: (v) => Math.abs(Number(v)),
  round(value, ...raw) {
    const a = bindArgs(raw, ['precision', 'method'], { precision: 0, method: 'common' });
    return pyRound(Number(value), Number(a.precision), String(a.method));
  },
  string: (v) => str(v),
  list: (v) => [...toList(v)],
  batch(value, ...raw) {
    const a = bindArgs(raw, ['linecount', 'fill_with'], { fill_with: null });
    const n = Number(a.linecount);
    const out: unknown[][] = [];
    const list = toList(value);
    for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
    const last = out[out.length - 1];
    if (last && a.fill_with !== null) while (last.length < n) last.push(a.fill_with);
    return out;
  },
  slice(value, ...raw) {
    const a = bindArgs(raw, ['slices', 'fill_with'], { fill_with: null });
    const list = toList(value);
    const n = Number(a.slices);
    const per = Math.floor(list.length / n);
    const extra = list.length % n;
    const out: unknown[][] = [];
    let offset = 0;
    for (let i = 0; i < n; i++) {
      const size = per + (i < extra ? 1 : 0);
      const part = list.slice(offset, offset + size);
      offset += size;
      if (a.fill_with !== null && i >= extra && extra > 0) part.push(a.fill_with);
      out.push(part);
    }
    return out;
  },
  format(value, ...raw) {
    const { args, kwargs } = splitArgs(raw);
    return percentFormat(str(value), Object.keys(kwargs).length ? kwargs : args);
  },
  quote: (v) => {
    const s = str(v);
    return s !== '' && /^[\w@%+=:,./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\"'\"'") + "'";
  },
  wordcount: (v) => (str(v).match(/\w+/g) ?? []).length,
  center: (v, width = 80) => {
    const s = str(v);
    const n = Math.max(0, Number(width) - s.length);
    return ' '.repeat(Math.floor(n / 2)) + s + ' '.repeat(n - Math.floor(n / 2));
  },
  truncate(value, ...raw) {
    const a = bindArgs(raw, ['length', 'killwords', 'end', 'leeway'], { length: 255, killwords: false, end: '...', leeway: 5 });
    const s = str(value);
    const len = Number(a.length);
    if (s.length <= len + Number(a.leeway)) return s;
    if (truthy(a.killwords)) return s.slice(0, len - str(a.end).length) + str(a.end);
    const cut = s.slice(0, len - str(a.end).length);
    return cut.replace(/\s*\S*$/, '') + str(a.end);
  },
  sequence: (v) => (Array.isArray(v) ? v : [v]),
  attr: (v, name) => memberLookup(v, String(name)),
  safe: (v) => v,
  e: (v) => str(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;'),
  urlencode: (v) => encodeURIComponent(str(v)),
  flatten(value, ...raw) {
    const a = bindArgs(raw, ['levels', 'preserve_nulls'], { levels: null, preserve_nulls: false });
    return flatten(value, a.levels === null ? null : Number(a.levels), truthy(a.preserve_nulls));
  },
  difference: (a, b) => {
    const other = toList(b);
    return toList(a).filter((x) => !other.includes(x));
  },
  intersect: (a, b) => {
    const other = toList(b);
    return unique(toList(a).filter((x) => other.includes(x)));
  },
  union: (a, b) => unique([...toList(a), ...toList(b)]),
  symmetric_difference: (a, b) => {
    const [la, lb] = [toList(a), toList(b)];
    return [...la.filter((x) => !lb.includes(x)), ...lb.filter((x) => !la.includes(x))];
  },
  is_list: (v) => Array.isArray(v),
  md5: (v) => createHash('md5').update(str(v)).digest('hex'),
  sha1: (v) => createHash('sha1').update(str(v)).digest('hex'),
  sha256: (v) => createHash('sha256').update(str(v)).digest('hex'),
  sha512: (v) => createHash('sha512').update(str(v)).digest('hex'),
  base64_encode: (v) => Buffer.from(str(v)).toString('base64'),
  base64_decode: (v) => Buffer.from(str(v), 'base64').toString(),
  path_join: (...parts) => {
    const { args } = splitArgs(parts);
    return args.map(str).reduce((acc, p) => (p.startsWith('/') ? p : acc === '' ? p : acc.replace(/\/$/, '') + '/' + p), '');
  },
  strformat: (v, ...args) => strFormat(str(v), args),
  repr: (v) => repr(v),
};
Object.assign(FILTERS, SALT_FILTERS);
FILTERS.d = FILTERS.default;
FILTERS.count = FILTERS.length;
FILTERS.escape = FILTERS.e;
FILTERS.json_encode = FILTERS.json;
FILTERS.json_decode_list = FILTERS.load_json;
FILTERS.json_decode_dict = FILTERS.load_json;

function num(v: unknown): boolean {
  return typeof v === 'number';
}

export const TESTS: Record<string, (this: any, value: any, ...args: any[]) => boolean> = {
  defined: (v) => v !== undefined,
  undefined: (v) => v === undefined,
  none: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  integer: (v) => num(v) && Number.isInteger(v),
  float: (v) => num(v) && !Number.isInteger(v),
  number: (v) => num(v) || typeof v === 'boolean',
  string: (v) => isStringLike(v),
  mapping: (v) => isDict(v),
  iterable: (v) => Array.isArray(v) || isStringLike(v) || isDict(v),
  sequence: (v) => Array.isArray(v) || isStringLike(v) || isDict(v),
  list: (v) => Array.isArray(v),
  callable: (v) => typeof v === 'function',
  sameas: (v, other) => v === other,
  escaped: () => false,
  in: (v, seq) => pyIn(v, seq),
  eq: (v, other) => pyEq(v, other),
  ne: (v, other) => !pyEq(v, other),
  lt: (v, other) => pyLess(v, other),
  le: (v, other) => !pyLess(other, v),
  gt: (v, other) => pyLess(other, v),
  ge: (v, other) => !pyLess(v, other),
  odd: (v) => Number(v) % 2 !== 0,
  even: (v) => Number(v) % 2 === 0,
  divisibleby: (v, n) => Number(v) % Number(n) === 0,
  lower: (v) => str(v) === str(v).toLowerCase(),
  upper: (v) => str(v) === str(v).toUpperCase(),
  match: (v, ...raw) => regexSearch(v, raw, true) !== null,
  search: (v, ...raw) => regexSearch(v, raw, false) !== null,
  truthy: (v) => truthy(v),
  falsy: (v) => !truthy(v),
};
TESTS.equalto = TESTS.eq;
TESTS['=='] = TESTS.eq;
TESTS['!='] = TESTS.ne;
TESTS['<'] = TESTS.lt;
TESTS['<='] = TESTS.le;
TESTS['>'] = TESTS.gt;
TESTS['>='] = TESTS.ge;
TESTS.lessthan = TESTS.lt;
TESTS.greaterthan = TESTS.gt;
TESTS.null = TESTS.none;
TESTS.regex_match = TESTS.match;
