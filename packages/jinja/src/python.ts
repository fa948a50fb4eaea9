/**
 * Python semantics that Jinja templates written for Salt rely on and JavaScript lacks:
 * truthiness, str()/repr() of values, `%` formatting, str.format, keyword arguments.
 */
import { keysOf } from '@brine/core';
import { ownMember } from './sandbox.js';

/** Nunjucks passes `f(a, k=v)` as `f(a, {k: v, __keywords: true})`. */
export interface Kwargs {
  [key: string]: unknown;
}

export function isKwargs(v: unknown): v is Kwargs {
  return typeof v === 'object' && v !== null && (v as { __keywords?: unknown }).__keywords === true;
}

/** Splits a call's arguments into positional ones and keyword ones (without the marker). */
export function splitArgs(args: unknown[]): { args: unknown[]; kwargs: Kwargs } {
  const last = args[args.length - 1];
  if (args.length > 0 && isKwargs(last)) {
    const kwargs: Kwargs = {};
    for (const k of Object.keys(last)) if (k !== '__keywords') kwargs[k] = last[k];
    return { args: args.slice(0, -1), kwargs };
  }
  return { args, kwargs: {} };
}

/**
 * Binds parameters Python-style: positional first, then keywords by name, then defaults.
 * `names` lists the parameters in order; a trailing kwargs object is taken apart.
 */
export function bindArgs(raw: unknown[], names: string[], defaults: Record<string, unknown> = {}): Record<string, unknown> {
  const { args, kwargs } = splitArgs(raw);
  const out: Record<string, unknown> = { ...defaults };
  names.forEach((n, i) => {
    if (i < args.length) out[n] = args[i];
  });
  for (const k of Object.keys(kwargs)) out[k] = kwargs[k];
  return out;
}

export function isDict(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A nunjucks SafeString (macro output, `| safe`) or a boxed string. */
export function isStringLike(v: unknown): v is string {
  return typeof v === 'string' || v instanceof String;
}

export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof String) return v.length > 0;
  if (isDict(v)) {
    for (const _ in v) return true;
    return false;
  }
  return !!v;
}

/** Arrays written as tuple literals (`(1,)`, `('a', 'b')`): everything treats them as lists but repr(). */
const TUPLES = new WeakSet<unknown[]>();

export function tuple(items: unknown[]): unknown[] {
  TUPLES.add(items);
  return items;
}

export function isTuple(v: unknown): boolean {
  return Array.isArray(v) && TUPLES.has(v);
}

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + quote;
}

function numberStr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  return String(n);
}

/** Python's repr(): how a value looks inside a list or dict that is printed. */
export function repr(v: unknown): string {
  if (v === undefined || v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return numberStr(v);
  if (isStringLike(v)) return reprString(String(v));
  if (Array.isArray(v)) {
    if (TUPLES.has(v)) return v.length === 1 ? '(' + repr(v[0]) + ',)' : '(' + v.map(repr).join(', ') + ')';
    return '[' + v.map(repr).join(', ') + ']';
  }
  if (typeof v === 'object') {
    return (
      '{' +
      keysOf(v)
        .map((k) => `${reprString(k)}: ${repr((v as Record<string, unknown>)[k])}`)
        .join(', ') +
      '}'
    );
  }
  return String(v);
}

/** Python's `==` across the types templates meet. */
export function pyEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (isStringLike(a) && isStringLike(b)) return String(a) === String(b);
  if (typeof a === 'object' && typeof b === 'object') {
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => pyEq((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) === Number(b) && typeof a !== 'string' && typeof b !== 'string';
  return false;
}

/** Python's `in`: a key of a dict, an item of a list, a substring of a string. */
export function pyIn(item: unknown, container: unknown): boolean {
  if (isStringLike(container)) {
    if (!isStringLike(item))
      throw new TypeError(`'in <string>' requires string as left operand, not ${item === null || item === undefined ? 'NoneType' : typeof item}`);
    return String(container).includes(String(item));
  }
  if (Array.isArray(container)) return container.some((x) => pyEq(x, item));
  if (isDict(container)) return Object.hasOwn(container, pyKey(item));
  if (container === null || container === undefined) throw new TypeError("argument of type 'NoneType' is not iterable");
  if (typeof container === 'object' && Symbol.iterator in container) return [...(container as Iterable<unknown>)].some((x) => pyEq(x, item));
  throw new TypeError(`argument of type '${typeof container}' is not iterable`);
}

/** Python's `<`: lists and tuples compare item by item. */
export function pyLess(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (pyEq(a[i], b[i])) continue;
      return pyLess(a[i], b[i]);
    }
    return a.length < b.length;
  }
  return (a as number) < (b as number);
}

/** The string a value becomes as a dict key (`{True: 1}` and `.get(True)` agree). */
export function pyKey(k: unknown): string {
  return typeof k === 'string' ? k : str(k);
}

/** Python's str(): what `{{ value }}` prints. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return numberStr(v);
  if (v instanceof String) return v.toString();
  if (typeof v === 'object') return repr(v);
  return String(v);
}

function pad(s: string, width: number, align: string, fill: string): string {
  if (s.length >= width) return s;
  const n = width - s.length;
  if (align === '<') return s + fill.repeat(n);
  if (align === '^') return fill.repeat(Math.floor(n / 2)) + s + fill.repeat(n - Math.floor(n / 2));
  if (align === '=' && /^[-+]/.test(s)) return s[0] + fill.repeat(n) + s.slice(1);
  return fill.repeat(n) + s;
}

function toInt(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (Number.isNaN(n)) throw new TypeError(`%d format: a number is required, not ${typeof v === 'string' ? 'str' : typeof v}`);
  return Math.trunc(n);
}

/** One `%` conversion: flags, width, precision, type. */
function percentOne(v: unknown, flags: string, width: string, prec: string, type: string): string {
  let s: string;
  switch (type) {
    case 's':
      s = str(v);
      if (prec !== '') s = s.slice(0, Number(prec));
      break;
    case 'r':
    case 'a':
      s = repr(v);
      break;
    case 'd':
    case 'i':
    case 'u':
      s = String(toInt(v));
      break;
    case 'f':
    case 'F':
      s = Number(v).toFixed(prec === '' ? 6 : Number(prec));
      break;
    case 'e':
    case 'E':
      s = Number(v)
        .toExponential(prec === '' ? 6 : Number(prec))
        .replace(/e([+-])(\d)$/, 'e$10$2');
      if (type === 'E') s = s.toUpperCase();
      break;
    case 'g':
    case 'G':
      s = String(Number(Number(v).toPrecision(prec === '' ? 6 : Math.max(1, Number(prec)))));
      break;
    case 'x':
      s = toInt(v).toString(16);
      break;
    case 'X':
      s = toInt(v).toString(16).toUpperCase();
      break;
    case 'o':
      s = toInt(v).toString(8);
      break;
    case 'c':
      s = typeof v === 'number' ? String.fromCodePoint(v) : str(v);
      break;
    default:
      throw new Error(`unsupported format character '${type}'`);
  }
  if (flags.includes('+') && /[dfieEgGu]/.test(type) && !s.startsWith('-')) s = '+' + s;
  else if (flags.includes(' ') && /[dfieEgGu]/.test(type) && !s.startsWith('-')) s = ' ' + s;
  const w = width === '' ? 0 : Number(width);
  if (flags.includes('-')) return pad(s, w, '<', ' ');
  if (flags.includes('0') && /[dfieEgGxXou]/.test(type)) return pad(s, w, '=', '0');
  return pad(s, w, '>', ' ');
}

const PERCENT = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([sradiufFeEgGxXoc%])/g;

/** `'%s-%s' % (a, b)`, `'%(x)s' % d`, `'%d' % n`. */
export function percentFormat(fmt: string, values: unknown): string {
  const positional = Array.isArray(values) ? values : [values];
  let i = 0;
  const out = fmt.replace(PERCENT, (_m, key: string | undefined, flags: string, width = '', prec = '', type: string) => {
    if (type === '%') return '%';
    let v: unknown;
    if (key !== undefined) {
      if (!isDict(values)) throw new TypeError('format requires a mapping');
      v = values[key];
    } else {
      if (width === '*') width = String(positional[i++]);
      if (prec === '*') prec = String(positional[i++]);
      if (i >= positional.length) throw new TypeError('not enough arguments for format string');
      v = positional[i++];
    }
    return percentOne(v, flags, width, prec, type);
  });
  if (!isDict(values) && i < positional.length && Array.isArray(values)) {
    throw new TypeError('not all arguments converted during string formatting');
  }
  return out;
}

function formatSpec(v: unknown, spec: string): string {
  const m = /^(?:(.)?([<>=^]))?([-+ ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/.exec(spec);
  if (!m) throw new Error(`invalid format specifier '${spec}'`);
  const [, fillCh, alignCh, sign, , zero, width, group, prec, type] = m;
  let s: string;
  if (type === undefined || type === 's') {
    s = typeof v === 'number' && type === undefined && prec !== undefined ? Number(v).toFixed(Number(prec)) : str(v);
    if (type === 's' && prec !== undefined) s = s.slice(0, Number(prec));
  } else if (type === '%') {
    s = (Number(v) * 100).toFixed(prec === undefined ? 6 : Number(prec)) + '%';
  } else if (type === 'b') {
    s = toInt(v).toString(2);
  } else {
    s = percentOne(v, '', '', prec ?? '', type === 'n' ? 'd' : type);
  }
  if (group && /^-?\d+/.test(s)) {
    const [intPart, rest = ''] = s.split(/(?=\.)/);
    s = intPart.replace(/\B(?=(\d{3})+(?!\d))/g, group) + rest;
  }
  if (sign === '+' && typeof v === 'number' && v >= 0) s = '+' + s;
  else if (sign === ' ' && typeof v === 'number' && v >= 0) s = ' ' + s;
  const numeric = typeof v === 'number';
  const align = alignCh ?? (zero ? '=' : numeric ? '>' : '<');
  const fill = fillCh ?? (zero && !alignCh ? '0' : ' ');
  return pad(s, width ? Number(width) : 0, align, fill);
}

function fieldValue(path: string, args: unknown[], kwargs: Kwargs, auto: { n: number }): unknown {
  const m = /^([^.[]*)(.*)$/.exec(path)!;
  let v: unknown;
  if (m[1] === '') v = args[auto.n++];
  else if (/^\d+$/.test(m[1])) v = args[Number(m[1])];
  else {
    if (!(m[1] in kwargs)) throw new Error(`KeyError: '${m[1]}'`);
    v = kwargs[m[1]];
  }
  const rest = m[2];
  const re = /\.(\w+)|\[([^\]]+)\]/g;
  let part: RegExpExecArray | null;
  while ((part = re.exec(rest))) {
    const key = part[1] ?? part[2];
    v = ownMember(v, /^\d+$/.test(key) && (Array.isArray(v) || typeof v === 'string') ? Number(key) : key);
  }
  return v;
}

/** str.format: `{}`, `{0}`, `{name}`, `{x.attr}`, `{!r}`, `{:>10}`, `{{`/`}}`. */
export function strFormat(fmt: string, rawArgs: unknown[]): string {
  const { args, kwargs } = splitArgs(rawArgs);
  const auto = { n: 0 };
  return fmt.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, field: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const m = /^([^!:]*)(?:!([rsa]))?(?::(.*))?$/.exec(field ?? '')!;
    let v = fieldValue(m[1], args, kwargs, auto);
    if (m[2] === 'r' || m[2] === 'a') v = repr(v);
    else if (m[2] === 's') v = str(v);
    return m[3] ? formatSpec(v, m[3]) : str(v);
  });
}
