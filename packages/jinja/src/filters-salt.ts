/**
 * More of Salt's Jinja filters (salt.utils.data, stringutils, dictupdate, network, jinja) and the
 * few Jinja builtins filters.ts does not define. Only filters that need nothing from the host:
 * ones that read files, resolve names or draw random numbers are left out (see README.md).
 */
import { createHash, createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { memberLookup, methodLookup } from './methods.js';
import { bindArgs, isDict, isStringLike, pyEq, pyIn, pyKey, pyLess, repr, splitArgs, str, truthy, tuple } from './python.js';
import { pyJson, toYaml } from './serialize.js';
import { keysOf } from '@brine/core';

type Filter = (this: any, value: any, ...args: any[]) => unknown;

function list(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  if (isStringLike(v)) return [...String(v)];
  if (isDict(v)) return keysOf(v);
  return [v];
}

/** `a:b:c` -> the dict holding `c` (made on the way) and `c`. */
function rpartition(d: Record<string, unknown>, keys: unknown, delimiter: unknown): [Record<string, unknown>, string] {
  const parts = str(keys).split(str(delimiter ?? ':'));
  let cur = d;
  for (const k of parts.slice(0, -1)) {
    if (!isDict(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  return [cur, parts[parts.length - 1]];
}

function dictKeyFilter(apply: (holder: Record<string, unknown>, key: string, value: unknown) => void): Filter {
  return (d, ...raw) => {
    const a = bindArgs(raw, ['keys', 'value', 'delimiter'], { delimiter: ':' });
    const [holder, key] = rpartition(d, a.keys, a.delimiter);
    apply(holder, key, a.value);
    return d;
  };
}

/** Python's int()/float() of a string, or undefined. */
function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  const s = str(v).trim();
  if (/^[-+]?\d+$/.test(s)) return Number(s);
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s) || /^[-+]?(inf|infinity|nan)$/i.test(s)) return Number(s.replace(/inf(inity)?/i, 'Infinity'));
  return undefined;
}

/** An IPv4 or IPv6 address or network (`10.0.0.0/8`), as Python's ipaddress would accept it. */
function ipVersion(v: unknown, networks: boolean): 4 | 6 | 0 {
  const s = str(v);
  const [addr, prefix, ...rest] = s.split('/');
  if (rest.length) return 0;
  const version = isIP(addr) as 0 | 4 | 6;
  if (!version || prefix === undefined) return version;
  if (!networks || !/^\d+$/.test(prefix) || Number(prefix) > (version === 4 ? 32 : 128)) return 0;
  return version;
}

function ipFilter(versions: Array<4 | 6>): Filter {
  return (value, ...raw) => {
    const a = bindArgs(raw, ['options'], { options: null });
    const opt = a.options === null ? '' : str(a.options);
    const ok = (x: unknown) => {
      const ver = ipVersion(x, true);
      if (!versions.includes(ver as 4 | 6)) return false;
      const s = str(x);
      if (opt === '') return true;
      if (opt === 'address' || opt === 'host') return !s.includes('/') || /\/(32|128)$/.test(s);
      if (opt === 'network') return s.includes('/');
      return true;
    };
    if (Array.isArray(value)) return value.filter(ok);
    return ok(value) ? value : null;
  };
}

function snake(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

function camel(s: string, upper: boolean): string {
  const parts = s.split('_');
  const out = parts.map((p, i) => (i === 0 && !upper ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
  return out;
}

function combos<T>(items: T[], r: number, repeat: boolean): T[][] {
  const out: T[][] = [];
  const pick = (start: number, acc: T[]) => {
    if (acc.length === r) return void out.push([...acc]);
    for (let i = start; i < items.length; i++) pick(repeat ? i : i + 1, [...acc, items[i]]);
  };
  pick(0, []);
  return out;
}

function perms<T>(items: T[], r: number): T[][] {
  const out: T[][] = [];
  const pick = (used: boolean[], acc: T[]) => {
    if (acc.length === r) return void out.push([...acc]);
    items.forEach((x, i) => {
      if (used[i]) return;
      used[i] = true;
      pick(used, [...acc, x]);
      used[i] = false;
    });
  };
  pick([], []);
  return out;
}

function product(lists: unknown[][]): unknown[][] {
  return lists.reduce<unknown[][]>((acc, l) => acc.flatMap((a) => l.map((x) => [...a, x])), [[]]);
}

const UNITS = 'bkmgtpezy';

export const SALT_FILTERS: Record<string, Filter> = {
  skip: () => '',
  is_ip: (v, ...raw) => {
    const a = bindArgs(raw, ['options'], { options: null });
    return ipVersion(v, str(a.options ?? '') !== 'address') !== 0;
  },
  is_ipv4: (v) => ipVersion(v, true) === 4,
  is_ipv6: (v) => ipVersion(v, true) === 6,
  ipv4: ipFilter([4]),
  ipv6: ipFilter([6]),
  ipaddr: ipFilter([4, 6]),
  ipwrap: (v) => {
    const wrap = (x: unknown) => (ipVersion(x, false) === 6 ? `[${str(x)}]` : x);
    return Array.isArray(v) ? v.map(wrap) : wrap(v);
  },
  is_iter: (v) => !isStringLike(v) && (Array.isArray(v) || isDict(v)),
  is_hex: (v) => /^\s*[-+]?(0x)?[0-9a-f]+(_[0-9a-f]+)*\s*$/i.test(str(v)),
  contains_whitespace: (v) => /\s/.test(str(v)),
  avg: (v) => {
    const l = list(v) as number[];
    return l.length ? l.reduce((a, b) => a + Number(b), 0) / l.length : 0.0;
  },
  to_num: (v) => toNumber(v) ?? v,
  to_bytes: (v) => str(v),
  human_to_bytes(value, ...raw) {
    const a = bindArgs(raw, ['default_unit', 'handle_metric'], { default_unit: 'B', handle_metric: false });
    const m = /^([0-9.]*)\s*(.*)$/.exec(str(value).trim())!;
    const n = m[1] === '' ? NaN : Number(m[1]);
    if (Number.isNaN(n)) return 0;
    const unit = m[2].toLowerCase() || str(a.default_unit).toLowerCase();
    let dec = false;
    if (/^[kmgtpezy]b$/.test(unit)) dec = truthy(a.handle_metric);
    else if (!/^(b|[kmgtpezy](ib)?)$/.test(unit)) return 0;
    const p = UNITS.indexOf(unit[0]);
    return Math.trunc(n * (dec ? 10 ** (p * 3) : 2 ** (p * 10)));
  },
  sorted_ignorecase: (v) =>
    [...list(v)].sort((x, y) => {
      const a = str(x).toLowerCase();
      const b = str(y).toLowerCase();
      return a < b ? -1 : a > b ? 1 : 0;
    }),
  substring_in_list: (s, l) => list(l).some((x) => str(x).includes(str(s))),
  exactly_n_true: (v, n) => list(v).filter(truthy).length === Number(n),
  exactly_one_true: (v) => list(v).filter(truthy).length === 1,
  compare_lists: (old, neu) => {
    const out: Record<string, unknown[]> = {};
    for (const x of list(neu)) if (!pyIn(x, list(old))) (out.new ??= []).push(x);
    for (const x of list(old)) if (!pyIn(x, list(neu))) (out.old ??= []).push(x);
    return out;
  },
  compare_dicts: (old, neu) => {
    const o = old ?? {};
    const n = neu ?? {};
    const out: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(n), ...Object.keys(o)])) {
      if (!(k in o)) out[k] = { old: '', new: n[k] };
      else if (!(k in n)) out[k] = { new: '', old: o[k] };
      else if (!pyEq(n[k], o[k])) out[k] = { old: o[k], new: n[k] };
    }
    return out;
  },
  to_entries: (v) => {
    if (isDict(v)) return keysOf(v).map((key) => ({ key, value: v[key] }));
    if (Array.isArray(v)) return v.map((value, key) => ({ key, value }));
    throw new Error('Input data must be a dict or list');
  },
  from_entries: (entries) => {
    const out: Record<string, unknown> = {};
    for (const e of list(entries)) {
      if (!isDict(e)) continue;
      const lower: Record<string, unknown> = {};
      for (const k of Object.keys(e)) lower[k.toLowerCase()] = e[k];
      for (const k of ['key', 'name']) {
        if (truthy(lower[k])) {
          out[pyKey(lower[k])] = lower.value ?? null;
          break;
        }
      }
    }
    return out;
  },
  json_encode_list: (v) => pyJson(v),
  json_encode_dict: (v) => pyJson(v),
  method_call(obj, name, ...raw) {
    const fn = methodLookup(obj, str(name));
    if (typeof fn !== 'function') return null;
    return fn(...raw);
  },
  set_dict_key_value: dictKeyFilter((h, k, v) => {
    h[k] = v;
  }),
  update_dict_key_value: dictKeyFilter((h, k, v) => {
    if (h[k] === undefined || h[k] === null) h[k] = {};
    if (!isDict(h[k])) throw new Error(`The last key contains a ${typeof h[k]}, which cannot update.`);
    Object.assign(h[k] as object, v);
  }),
  append_dict_key_value: dictKeyFilter((h, k, v) => {
    if (h[k] === undefined || h[k] === null) h[k] = [];
    if (!Array.isArray(h[k])) throw new Error(`The last key contains a ${typeof h[k]}, which cannot append.`);
    (h[k] as unknown[]).push(v);
  }),
  extend_dict_key_value: dictKeyFilter((h, k, v) => {
    if (h[k] === undefined || h[k] === null) h[k] = [];
    if (!Array.isArray(h[k])) throw new Error(`The last key contains a ${typeof h[k]}, which cannot extend.`);
    (h[k] as unknown[]).push(...list(v));
  }),
  to_snake_case: (v) => snake(str(v)),
  to_camelcase: (v, ...raw) => camel(str(v), truthy(bindArgs(raw, ['uppercamel'], { uppercamel: false }).uppercamel)),
  load_text: (v) => str(v),
  python: (v) => repr(v),
  zip: (...lists) => {
    const ls = splitArgs(lists).args.map(list);
    const n = Math.min(...ls.map((l) => l.length));
    return Array.from({ length: n }, (_, i) => ls.map((l) => l[i]));
  },
  zip_longest: (...raw) => {
    const { args, kwargs } = splitArgs(raw);
    const ls = args.map(list);
    const n = Math.max(0, ...ls.map((l) => l.length));
    return Array.from({ length: n }, (_, i) => ls.map((l) => (i < l.length ? l[i] : (kwargs.fillvalue ?? null))));
  },
  product: (...raw) => {
    const { args, kwargs } = splitArgs(raw);
    const ls = args.map(list);
    const repeat = Number(kwargs.repeat ?? 1);
    return product(Array.from({ length: repeat }, () => ls).flat());
  },
  combinations: (v, r) => combos(list(v), Number(r), false),
  combinations_with_replacement: (v, r) => combos(list(v), Number(r), true),
  permutations: (v, r?: unknown) => perms(list(v), r === undefined || r === null ? list(v).length : Number(r)),
  compress: (v, selectors) => list(v).filter((_, i) => truthy(list(selectors)[i])),
  dict_to_sls_yaml_params: (v, ...raw) => {
    const flow = bindArgs(raw, ['flow_style'], { flow_style: false }).flow_style;
    return toYaml(
      keysOf(v ?? {}).map((k) => ({ [k]: v[k] })),
      flow === null ? null : truthy(flow),
    );
  },
  uuid: (v) => {
    // uuid5 in Salt's own namespace (salt.utils.jinja.GLOBAL_UUID).
    const ns = Buffer.from('91633ebf1c865e33935a28061f4b480e', 'hex');
    const h = createHash('sha1').update(ns).update(str(v)).digest();
    h[6] = (h[6] & 0x0f) | 0x50;
    h[8] = (h[8] & 0x3f) | 0x80;
    const x = h.subarray(0, 16).toString('hex');
    return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
  },
  hmac: (value, secret, challenge) => {
    const digest = createHmac('sha256', str(secret)).update(str(value)).digest('base64');
    return digest === str(challenge);
  },
  hmac_compute: (value, secret) => createHmac('sha256', str(secret)).update(str(value)).digest('hex'),
  filesizeformat(value, ...raw) {
    const binary = truthy(bindArgs(raw, ['binary'], { binary: false }).binary);
    const bytes = Number(value);
    const base = binary ? 1024 : 1000;
    const prefixes = binary ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'] : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
    if (bytes === 1) return '1 Byte';
    if (bytes < base) return `${Math.trunc(bytes)} Bytes`;
    let unit = 0;
    for (let i = 0; i < prefixes.length; i++) {
      unit = base ** (i + 2);
      if (bytes < unit) return `${((base * bytes) / unit).toFixed(1)} ${prefixes[i]}`;
    }
    return `${((base * bytes) / unit).toFixed(1)} ${prefixes[prefixes.length - 1]}`;
  },
  pprint: (v) => repr(v),
  groupby(value, ...raw) {
    const a = bindArgs(raw, ['attribute', 'default', 'case_sensitive'], { default: null, case_sensitive: false });
    const parts = str(a.attribute).split('.');
    const get = (x: unknown) => {
      const v = parts.reduce<unknown>(
        (o, p) => (o === undefined || o === null ? undefined : memberLookup(o, /^\d+$/.test(p) && Array.isArray(o) ? Number(p) : p)),
        x,
      );
      return v === undefined ? a.default : v;
    };
    const key = (x: unknown) => {
      const v = get(x);
      return !truthy(a.case_sensitive) && isStringLike(v) ? String(v).toLowerCase() : v;
    };
    const sorted = [...list(value)].sort((x, y) => (pyLess(key(x), key(y)) ? -1 : pyLess(key(y), key(x)) ? 1 : 0));
    const out: unknown[][] = [];
    for (const item of sorted) {
      const last = out[out.length - 1];
      if (last && pyEq(key(last[1] && (last[1] as unknown[])[0]), key(item))) (last[1] as unknown[]).push(item);
      else out.push([undefined, [item]]);
    }
    // Jinja's group tuples: `g.grouper` / `g.list` as well as `g[0]` / `g[1]`.
    return out.map((g) => {
      const items = g[1] as unknown[];
      const t = tuple([get(items[0]), items]);
      Object.defineProperty(t, 'grouper', { value: t[0] });
      Object.defineProperty(t, 'list', { value: items });
      return t;
    });
  },
  wordwrap(value, ...raw) {
    const a = bindArgs(raw, ['width', 'break_long_words', 'wrapstring', 'break_on_hyphens'], { width: 79, break_long_words: true, wrapstring: '\n' });
    const width = Number(a.width);
    return str(value)
      .split('\n')
      .map((para) => {
        const lines: string[] = [];
        let cur = '';
        for (const word of para.split(/\s+/).filter((w) => w !== '')) {
          if (cur === '') cur = word;
          else if (cur.length + 1 + word.length <= width) cur += ' ' + word;
          else {
            lines.push(cur);
            cur = word;
          }
          while (truthy(a.break_long_words) && cur.length > width) {
            lines.push(cur.slice(0, width));
            cur = cur.slice(width);
          }
        }
        if (cur !== '') lines.push(cur);
        return lines.join(str(a.wrapstring));
      })
      .join(str(a.wrapstring));
  },
  xmlattr(value, ...raw) {
    const space = truthy(bindArgs(raw, ['autospace'], { autospace: true }).autospace);
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
    const parts = Object.keys(value ?? {})
      .filter((k) => value[k] !== null && value[k] !== undefined)
      .map((k) => `${esc(k)}="${esc(str(value[k]))}"`);
    const out = parts.join(' ');
    return space && out ? ' ' + out : out;
  },
};
SALT_FILTERS.str_to_num = SALT_FILTERS.to_num;
